// IMServer: see ARCHITECTURE.md.
