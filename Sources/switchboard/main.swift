#if canImport(Glibc)
import Glibc
#endif

// A thin entry point: parse the command line and hand over to the command.
exit(await CLI.main(Array(CommandLine.arguments.dropFirst())))
