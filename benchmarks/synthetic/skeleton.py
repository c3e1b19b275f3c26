"""The language-neutral skeleton of the synthetic corporate wiki.

Every page, section, context link and fact lives here; the banks only word them.
Facts are drawn from a `random.Random` seeded per entity (seeding with a string is
stable across interpreter runs, unlike `hash()`), so adding numbered entities with
--scale never changes the facts of the curated ones.

Values that need words (a person, a weekday, a supplier) are stored as indices into
the bank vocabularies listed in `VOCABULARY_SIZES`, so both languages draw the same
random numbers and stay parallel.
"""

from __future__ import annotations

from random import Random

from benchmarks.synthetic.model import Facts, Family, Page, Section

SEED = 1729
TOPICS = (
    "hr",
    "it",
    "security",
    "travel",
    "onboarding",
    "facilities",
    "payroll",
    "procurement",
    "engineering",
    "legal",
)
PARAPHRASE_SHARE = 0.42
UNSUPPORTED_CLAIMS = 8
EXTRA_ENTITIES_PER_SCALE = 20

VOCABULARY_SIZES = {
    "person": 40,
    "room": 24,
    "vendor": 16,
    "roles": 8,
    "toolset": 8,
    "weekday": 5,
    "month": 12,
    "approver": 3,
    "plan": 3,
    "cover": 3,
}


def _person(r: Random) -> int:
    return r.randrange(VOCABULARY_SIZES["person"])


def office_facts(r: Random, index: int, slug: str) -> Facts:
    return {
        "open": r.choice(("07:00", "07:30", "08:00")),
        "close": r.choice(("19:00", "20:00", "21:00", "22:00")),
        "saturday": r.choice(("09:00–14:00", "10:00–16:00", "10:00–18:00")),
        "floor": r.randint(1, 4),
        "reception_ext": str(r.randint(2100, 2999)),
        "badge_days": r.randint(1, 3),
        "lost_fee": r.choice((15, 20, 25, 30, 40)),
        "badge_contact": _person(r),
        "level": r.choice(("-1", "-2")),
        "spaces": r.randint(12, 80),
        "ev": r.randint(2, 10),
        "permit_contact": _person(r),
        "permit_months": r.choice((3, 6, 12)),
        "rooms": r.randint(6, 24),
        "big_room": r.randrange(VOCABULARY_SIZES["room"]),
        "big_cap": r.choice((12, 16, 20, 24, 30, 40)),
        "max_hours": r.choice((2, 3, 4)),
        "visitor_hours": r.choice((2, 4, 24)),
        "voucher_hours": r.choice((8, 12, 24, 72)),
    }


def vpn_facts(r: Random, index: int, slug: str) -> Facts:
    return {
        "version": r.choice(("6.1.4", "6.2.1", "6.2.3", "6.3.0")),
        "gateway": r.choice(("vpn.example.com", "vpn-eu.example.com", "vpn2.example.com")),
        "timeout": r.choice((8, 10, 12)),
        "error": str(r.randint(100, 999)),
    }


ACCESS_ROLES = (1, 0, 1, 2, 1, 3, 6, 5, 7)


def access_facts(r: Random, index: int, slug: str) -> Facts:
    roles = ACCESS_ROLES[index] if index < len(ACCESS_ROLES) else r.randrange(VOCABULARY_SIZES["roles"])
    return {
        "roles": roles,
        "owner": _person(r),
        "sla": r.randint(1, 5),
        "review_months": r.choice((3, 6, 12)),
        "inactive_days": r.choice((30, 60, 90)),
    }


EQUIPMENT = (
    ("MacBook Pro 16 (M3 Pro, 36 GB RAM)", 2, 36, 400, 2),
    ("MacBook Pro 14 (M3 Max, 48 GB RAM)", 2, 36, 500, 2),
    ("Lenovo ThinkPad X1 Carbon Gen 12", 1, 48, 250, 3),
    ("Dell Latitude 7450", 2, 48, 300, 3),
    ("MacBook Air 15 (M3, 24 GB RAM)", 1, 36, 250, 3),
)


def equipment_facts(r: Random, index: int, slug: str) -> Facts:
    laptop, monitors, cycle, budget, period = EQUIPMENT[index]
    return {
        "laptop": laptop,
        "monitors": monitors,
        "cycle": cycle,
        "budget": budget,
        "period": period,
        "headset": r.choice(("Jabra Evolve2 65", "Poly Voyager Focus 2", "Logitech Zone Vibe 100", "Jabra Evolve2 55")),
        "return_days": r.choice((5, 10)),
    }


def no_facts(r: Random, index: int, slug: str) -> Facts:
    """For families whose distinguishing content is prose written per entity in the banks."""
    return {}


TRIPS = (
    (28, 120, 0, 7, 0),
    (45, 160, 0, 14, 1),
    (60, 220, 6, 21, 1),
    (55, 180, 6, 21, 1),
    (50, 170, 8, 21, 2),
)


def trip_facts(r: Random, index: int, slug: str) -> Facts:
    per_diem, hotel, business_hours, lead_days, approver = TRIPS[index]
    return {
        "per_diem": per_diem,
        "hotel": hotel,
        "business_hours": business_hours,
        "lead_days": lead_days,
        "approver": approver,
        "valid_days": r.choice((30, 60, 90)),
    }


DEPARTMENT_TOOLSETS = (0, 1, 2, 3, 4, 5, 6, 7)


def department_facts(r: Random, index: int, slug: str) -> Facts:
    toolset = (
        DEPARTMENT_TOOLSETS[index]
        if index < len(DEPARTMENT_TOOLSETS)
        else r.randrange(VOCABULARY_SIZES["toolset"])
    )
    return {
        "intro_day": r.randrange(VOCABULARY_SIZES["weekday"]),
        "intro_time": r.choice(("10:00", "11:00", "14:00", "15:30")),
        "course": f"ONB-{r.randint(101, 199)}",
        "toolset": toolset,
        "coordinator": _person(r),
        "buddy_weeks": r.choice((4, 6, 8)),
        "probation": r.choice((3, 6)),
    }


GRADES = (
    (0, 50, 0, 800, 2, 30, 5),
    (0, 60, 1, 1200, 3, 40, 8),
    (1, 70, 1, 1600, 4, 50, 10),
    (1, 80, 2, 2000, 5, 60, 15),
    (2, 100, 2, 3000, 5, 80, 20),
)


def grade_facts(r: Random, index: int, slug: str) -> Facts:
    plan, dental, cover, learning, conf_days, sport, bonus = GRADES[index]
    return {
        "plan": plan,
        "dental": dental,
        "cover": cover,
        "learning": learning,
        "conf_days": conf_days,
        "sport": sport,
        "bonus": bonus,
        "bonus_month": r.choice((2, 3, 4)),
        "checkup_months": r.choice((12, 24)),
    }


def procurement_facts(r: Random, index: int, slug: str) -> Facts:
    return {
        "manager_limit": r.choice((500, 1000, 2000)),
        "cfo_limit": r.choice((5000, 10000, 20000)),
        "quotes": r.choice((2, 3)),
        "buyer": _person(r),
        "order_days": r.randint(1, 3),
        "delivery_days": r.choice((3, 5, 7, 10, 14)),
        "vendor": r.randrange(VOCABULARY_SIZES["vendor"]),
        "contract_year": r.choice((2026, 2027, 2028)),
        "max_wait": r.choice((10, 15, 20, 30)),
    }


TEAM_SERVICES = {
    "payments": ("payment-gateway", "refund-service"),
    "search": ("search-indexer", "query-api"),
    "mobile": ("mobile-bff", "push-sender"),
    "platform": ("deploy-controller", "service-mesh"),
    "data": ("event-pipeline", "warehouse-loader"),
    "identity": ("auth-service", "sso-bridge"),
    "checkout": ("checkout-api", "cart-service"),
    "notifications": ("notification-hub", "email-sender"),
    "billing": ("invoice-generator", "billing-api"),
}


def team_facts(r: Random, index: int, slug: str) -> Facts:
    service_a, service_b = TEAM_SERVICES.get(slug, (f"{slug}-api", f"{slug}-worker"))
    return {
        "size": r.randint(5, 9),
        "handover_day": r.randrange(VOCABULARY_SIZES["weekday"]),
        "handover_time": r.choice(("10:00", "11:00", "12:00", "16:00")),
        "ack": r.choice((5, 10, 15)),
        "escalate": r.choice((15, 20, 30)),
        "manager": _person(r),
        "channel": f"#oncall-{slug}",
        "alerts": f"#alerts-{slug}",
        "dashboard": f"{slug} / overview",
        "space": f"RUN-{slug.upper()}",
        "service_a": service_a,
        "service_b": service_b,
        "slo": r.choice(("99.5%", "99.9%", "99.95%")),
        "budget_left": r.choice((10, 20, 25)),
    }


def contract_facts(r: Random, index: int, slug: str) -> Facts:
    return {
        "template_id": f"LT-{r.randint(10, 99)}",
        "lawyer": _person(r),
        "review_days": r.randint(2, 5),
        "limit": r.choice((10000, 25000, 50000, 100000)),
        "retention": r.choice((5, 7, 10)),
    }


def _sections(*keys: str, **contexts: str) -> tuple[Section, ...]:
    """Section keys in page order; keyword arguments link a section to its context section."""
    return tuple(Section(key, contexts.get(key.replace("-", "_"))) for key in keys)


FAMILIES = (
    Family(
        key="leave",
        topic="hr",
        page="leave-{slug}",
        slugs=("annual", "sick", "parental", "study", "unpaid", "family-events"),
        sections=_sections("entitlement", "request", "pay", request="entitlement"),
        facts=no_facts,
    ),
    Family(
        key="vpn",
        topic="it",
        page="vpn-{slug}",
        slugs=("macos", "windows", "linux", "ios", "android"),
        sections=_sections("install", "connect", "troubleshoot", troubleshoot="connect"),
        facts=vpn_facts,
    ),
    Family(
        key="access",
        topic="it",
        page="access-{slug}",
        slugs=("jira", "confluence", "gitlab", "crm", "grafana", "erp", "bi", "figma", "hr-system"),
        sections=_sections("eligibility", "request", "review", request="eligibility"),
        facts=access_facts,
        extra_slug="service-{n}",
    ),
    Family(
        key="equipment",
        topic="it",
        page="equipment-{slug}",
        slugs=("engineering", "design", "sales", "support", "management"),
        sections=_sections("laptop", "replacement", "peripherals", replacement="laptop"),
        facts=equipment_facts,
    ),
    Family(
        key="classification",
        topic="security",
        page="data-classification-{slug}",
        slugs=("public", "internal", "confidential", "restricted"),
        sections=_sections("definition", "storage", "sharing", "disposal", sharing="definition"),
        facts=no_facts,
    ),
    Family(
        key="trip",
        topic="travel",
        page="trips-{slug}",
        slugs=("domestic", "europe", "north-america", "asia-pacific", "rest-of-world"),
        sections=_sections("allowance", "flights", "approval", approval="allowance"),
        facts=trip_facts,
    ),
    Family(
        key="department",
        topic="onboarding",
        page="{slug}",
        slugs=("sales", "engineering", "support", "finance", "marketing", "people", "legal", "operations"),
        sections=_sections("first-week", "tools", "probation", probation="first-week"),
        facts=department_facts,
        extra_slug="department-{n}",
    ),
    Family(
        key="office",
        topic="facilities",
        page="office-{slug}",
        slugs=tuple(str(n) for n in range(1, 10)),
        sections=_sections("hours", "badge", "parking", "rooms", "guests", parking="badge", guests="hours"),
        facts=office_facts,
        extra_slug="{n}",
    ),
    Family(
        key="grade",
        topic="payroll",
        page="benefits-{slug}",
        slugs=("g1", "g2", "g3", "g4", "g5"),
        sections=_sections("health", "learning", "wellbeing", "bonus"),
        facts=grade_facts,
    ),
    Family(
        key="procurement",
        topic="procurement",
        page="{slug}",
        slugs=("hardware", "software", "office-supplies", "services", "furniture", "marketing-materials", "events"),
        sections=_sections("thresholds", "ordering", "vendors", ordering="thresholds"),
        facts=procurement_facts,
        extra_slug="category-{n}",
    ),
    Family(
        key="team",
        topic="engineering",
        page="oncall-{slug}",
        slugs=tuple(TEAM_SERVICES),
        sections=_sections("rotation", "escalation", "dashboards", "services", escalation="rotation"),
        facts=team_facts,
        extra_slug="team-{n}",
    ),
    Family(
        key="contract",
        topic="legal",
        page="contracts-{slug}",
        slugs=("nda", "services", "licence", "lease", "partnership", "supply"),
        sections=_sections("template", "approval", "signing", signing="approval"),
        facts=contract_facts,
    ),
)

PAGES = (
    Page("remote-work", "hr", _sections("eligibility", "home-office", "abroad", abroad="eligibility")),
    Page("performance-review", "hr", _sections("cycle", "self-assessment", "ratings", self_assessment="cycle")),
    Page("offboarding", "hr", _sections("notice", "equipment-return", "final-pay", final_pay="notice")),
    Page("service-desk", "it", _sections("channels", "priorities", "after-hours", after_hours="priorities")),
    Page("passwords", "security", _sections("rules", "mfa", "password-manager", password_manager="rules")),
    Page(
        "incident-reporting",
        "security",
        _sections("phishing", "lost-device", "contacts", lost_device="contacts"),
    ),
    Page("expense-reports", "travel", _sections("deadline", "receipts", "reimbursement", receipts="deadline")),
    Page("first-day", "onboarding", _sections("arrival", "bring", "schedule", schedule="arrival")),
    Page("desk-booking", "facilities", _sections("rules", "cancellation", cancellation="rules")),
    Page("pay-schedule", "payroll", _sections("payday", "payslips", "corrections", corrections="payday")),
    Page("new-supplier", "procurement", _sections("checks", "registration", registration="checks")),
    Page("incident-severity", "engineering", _sections("sev1", "sev2", "sev3", "sev4")),
    Page("postmortems", "engineering", _sections("when", "document", "review", document="when")),
    Page("personal-data", "legal", _sections("principles", "requests", "breaches", breaches="principles")),
)

UNANSWERABLE_TOPICS = (
    "facilities",
    "hr",
    "payroll",
    "it",
    "facilities",
    "hr",
    "engineering",
    "procurement",
    "hr",
    "facilities",
)
