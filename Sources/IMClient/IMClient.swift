// IMClient: see ARCHITECTURE.md.
