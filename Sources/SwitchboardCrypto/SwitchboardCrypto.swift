// SwitchboardCrypto: see ARCHITECTURE.md.
