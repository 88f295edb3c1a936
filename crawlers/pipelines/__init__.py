"""The item pipelines, one class a module, declared in ``crawlers/settings.py`` in the order they run."""
