"""The law as it stands: act versions with their provisions, and the citator."""

import dagster as dg

from assets.law.assets import citations, law_versions

defs = dg.Definitions(assets=[law_versions, citations])
