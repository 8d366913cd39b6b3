"""The sqlite plugin (a Swift executable; this file lets unittest discover its protocol test)."""
