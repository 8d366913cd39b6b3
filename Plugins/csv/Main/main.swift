print("tabdeck-csv: not yet implemented")
