// IMStore: see ARCHITECTURE.md.
