// YAMLCoding: see ARCHITECTURE.md.
