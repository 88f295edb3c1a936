# Before any spider process imports Scrapy's cookie middleware: its Public Suffix List stays the bundled snapshot.
from crawlers.offline_psl import use_bundled_public_suffix_list

use_bundled_public_suffix_list()
