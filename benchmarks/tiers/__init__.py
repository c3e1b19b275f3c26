"""The one registry of tiers: a new tier is a module plus one line here."""

from benchmarks.tiers import tier0, tier1, tier2, tier3
from benchmarks.tiers.base import Tier

TIERS: dict[str, Tier] = {tier.name: tier for tier in (tier0.TIER, tier1.TIER, tier2.TIER, tier3.TIER)}
