#if canImport(Glibc)
import Glibc
#endif

// A peer that closes a connection while something is written to it must give an error on
// that write, not end the process (the default action of SIGPIPE). The C libraries ask
// for this per send where they can; a write they cannot flag is covered here.
signal(SIGPIPE, SIG_IGN)

// A thin entry point: parse the command line and hand over to the command.
exit(await CLI.main(Array(CommandLine.arguments.dropFirst())))
