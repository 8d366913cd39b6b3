print("tabdeck: not yet implemented")
