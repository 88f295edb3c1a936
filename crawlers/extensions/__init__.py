"""The crawl's extensions, one class a module, declared in ``crawlers/settings.py``."""
