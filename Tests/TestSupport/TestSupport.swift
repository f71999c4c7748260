// Test helpers shared by the server, client and bot tests.
