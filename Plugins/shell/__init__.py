"""The shell plugin (run wordcount.sh; this file lets unittest discover its tests)."""
