"""The one registry of tiers: a new tier is a module plus one line here."""

from benchmarks.tiers import real_users, tier0, tier1, tier2, tier3, ux
from benchmarks.tiers.base import Tier

TIERS: dict[str, Tier] = {tier.name: tier for tier in (tier0.TIER, tier1.TIER, tier2.TIER, tier3.TIER, ux.TIER,
                                                        real_users.TIER)}
