"""Download handlers, one class a module, declared in ``crawlers/settings.py``."""
