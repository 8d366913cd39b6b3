"""The processes plugin (run processes.py as a program; this file lets unittest discover the tests)."""
