// IMBots: see ARCHITECTURE.md.
