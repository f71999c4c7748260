// Templates: see ARCHITECTURE.md.
