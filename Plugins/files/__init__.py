"""The files plugin (run files.py as a program; this file lets unittest discover the tests)."""
