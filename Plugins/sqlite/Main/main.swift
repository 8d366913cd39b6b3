print("tabdeck-sqlite: not yet implemented")
