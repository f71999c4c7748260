import Testing

/// Every bot test that runs a real server or a real Alertmanager pair, one test at a
/// time: each such test starts a server (and often a runner and an endpoint) with
/// threads of their own, or outside processes, and many at once made the whole test run
/// start hundreds of threads.
@Suite(.serialized) enum ServerSuites {}
