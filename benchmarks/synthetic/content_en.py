"""English wording of the synthetic corporate wiki.

Family templates are shared by all entities of a family on purpose: sibling pages read
alike and differ only in the entity and its facts, which is what makes retrieval hard.
Paraphrases use a second, colloquial name for the entity where one exists (`casual`,
`device`, `where`) so that they do not simply repeat the chunk's wording.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.synthetic.model import Bank, FamilyText, Fields, PageText, section

PEOPLE = (
    "Anna Keller",
    "Jonas Weber",
    "Maria Santos",
    "Lukas Novak",
    "Sophie Martin",
    "Tomasz Kowalski",
    "Elena Rossi",
    "David Fischer",
    "Laura Schmidt",
    "Marek Dvořák",
    "Julia Wagner",
    "Pedro Almeida",
    "Katarzyna Nowak",
    "Felix Bauer",
    "Inês Costa",
    "Martin Horák",
    "Clara Hoffmann",
    "Nils Jansen",
    "Eva Lindqvist",
    "Paul Becker",
    "Sara Moretti",
    "Jan de Vries",
    "Olga Petrova",
    "Lea Schulz",
    "Mateo García",
    "Hannah Wolf",
    "Piotr Zieliński",
    "Lisa Braun",
    "Ana Ferreira",
    "Tim Richter",
    "Marta López",
    "Erik Hansen",
    "Nina Krause",
    "Luca Bianchi",
    "Zofia Wójcik",
    "Max Neumann",
    "Chloé Dubois",
    "Tobias Lang",
    "Isabel Ruiz",
    "Daniel Vogel",
)
ROOMS = (
    "Everest",
    "Kilimanjaro",
    "Aconcagua",
    "Denali",
    "Elbrus",
    "Mont Blanc",
    "Matterhorn",
    "Olympus",
    "Fuji",
    "Etna",
    "Vesuvius",
    "Zugspitze",
    "Triglav",
    "Rila",
    "Tatra",
    "Ararat",
    "Atlas",
    "Andes",
    "Alps",
    "Pyrenees",
    "Carpathians",
    "Dolomites",
    "Sierra Nevada",
    "Caucasus",
)
VENDORS = (
    "Northwind Trading",
    "Brightline Group",
    "Keystone Partners",
    "Meridian Sourcing",
    "Bluebird & Co.",
    "Atlas Commercial",
    "Harbor Supply Group",
    "Summit Trade",
    "Clearwater Solutions",
    "Ironbridge Holdings",
    "Greenleaf Partners",
    "Polaris Group",
    "Redwood & Sons",
    "Silverline Enterprises",
    "Oakmont Trading",
    "Vertex Business Services",
)
ROLES = (
    "all employees and contractors with a company account",
    "engineering, product and QA staff",
    "sales, account management and customer success staff",
    "finance, procurement and controlling staff",
    "team leads and managers of any department",
    "designers, product managers and marketing staff",
    "data analysts, finance staff and managers from grade G4 up",
    "HR staff only (other employees see their own records through self-service)",
)
TOOLSETS = (
    "Salesforce CRM, Gong call recording and the sales playbook in Confluence",
    "GitLab, Jira, Grafana and a local development environment set up with the dev-setup script",
    "Zendesk, the internal knowledge base and the Aircall phone app",
    "SAP ERP, Excel with the finance add-ins and the expense approval tool",
    "HubSpot, Figma (viewer licence) and the brand asset library",
    "Workday, Greenhouse recruiting and the HR ticket queue",
    "the contract register, the e-signature tool and the legal templates library",
    "ServiceNow, the warehouse management system and the Tableau operations dashboards",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
APPROVERS = (
    "your line manager",
    "your line manager and your head of department",
    "your head of department and the CFO",
)
PLANS = ("Basic", "Plus", "Premium")
COVERS = (
    "you only",
    "you and your partner",
    "you, your partner and your children under 25",
)

VOCABULARIES = {
    "person": PEOPLE,
    "room": ROOMS,
    "vendor": VENDORS,
    "roles": ROLES,
    "toolset": TOOLSETS,
    "weekday": WEEKDAYS,
    "month": MONTHS,
    "approver": APPROVERS,
    "plan": PLANS,
    "cover": COVERS,
}


def plural(count: int, forms: tuple[str, ...]) -> str:
    """English needs only singular and plural: `{n:day|days}`."""
    return forms[0] if count == 1 else forms[1]


def _lookup(vocabulary: tuple[str, ...]) -> Callable[[object], str]:
    return lambda index: vocabulary[int(str(index))]


def euros(amount: object) -> str:
    return f"€{int(str(amount)):,}"


def cabin(hours: object) -> str:
    """The skeleton stores 0 for "never business class"; a number would read as a zero-hour rule."""
    limit = int(str(hours))
    if limit == 0:
        return "economy only, whatever the length of the flight"
    return f"business class on flights longer than {limit} hours, economy on shorter ones"


FORMATS: dict[str, Callable[[object], str]] = {
    **{name: _lookup(words) for name, words in VOCABULARIES.items()},
    "eur": euros,
    "cabin": cabin,
}


def _leave(
    name: str, casual: str, entitlement: str, entitlement_answer: str, request: str, request_answer: str,
    pay: str, pay_answer: str,
) -> Fields:
    return {
        "name": name,
        "Name": name[0].upper() + name[1:],
        "casual": casual,
        "entitlement": entitlement,
        "entitlement_answer": entitlement_answer,
        "request": request,
        "request_answer": request_answer,
        "pay": pay,
        "pay_answer": pay_answer,
    }


LEAVE = FamilyText(
    title="{Name}",
    entities=(
        _leave(
            "annual leave",
            "vacation days",
            "Every employee gets 28 working days of annual leave per calendar year, pro rata for part-time "
            "contracts and in the first and last year of employment. Up to 5 unused days can be carried over "
            "into the next year and must be taken by 31 March; the rest expires.",
            "28 working days per calendar year (pro rata for part-time and partial years); up to 5 unused "
            "days carry over and must be taken by 31 March.",
            "Book annual leave in Workday under Absences → Annual leave at least two weeks before the first "
            "day off; for more than 10 working days in a row, ask at least four weeks ahead. Your line "
            "manager approves the request, usually within three working days.",
            "In Workday under Absences → Annual leave, at least two weeks ahead (four weeks for more than 10 "
            "working days); your line manager approves it.",
            "Annual leave is paid at your full base salary plus the average of any regular allowances over "
            "the last three months. Unused days are paid out only when you leave the company.",
            "At full base salary plus the three-month average of regular allowances; unused days are paid "
            "out only when you leave.",
        ),
        _leave(
            "sick leave",
            "time off when I'm ill",
            "If you are ill you can stay off work for as long as your illness requires; there is no annual "
            "limit on sick days. For the first 3 calendar days of an illness no doctor's note is needed; "
            "from the fourth day you need a medical certificate.",
            "There is no annual limit; a medical certificate is needed from the fourth calendar day of an "
            "illness.",
            "Report sick leave before 10:00 on the first day: tell your line manager and record the absence "
            "in Workday under Absences → Sickness. Upload the medical certificate in the same place within 2 "
            "working days of receiving it.",
            "Tell your line manager and record it in Workday (Absences → Sickness) before 10:00 on the first "
            "day; upload the certificate within 2 working days.",
            "Sick leave is paid at 100% of base salary for the first 6 weeks of each illness. After that the "
            "health insurer pays sick benefit, and the company tops it up to 90% of your net salary for up "
            "to 12 more weeks.",
            "Full base salary for the first 6 weeks of each illness, then insurer sick benefit topped up by "
            "the company to 90% of net salary for up to 12 more weeks.",
        ),
        _leave(
            "parental leave",
            "time off for a new baby",
            "Each parent can take up to 36 months of parental leave per child, until the child's eighth "
            "birthday, split into at most three blocks. The birth parent also gets 14 weeks of maternity "
            "protection around the birth, which does not count towards the 36 months.",
            "Up to 36 months per parent and child until the child turns eight, in at most three blocks, plus "
            "14 weeks of maternity protection for the birth parent.",
            "Apply for parental leave in Workday under Absences → Parental leave at least 7 weeks before it "
            "starts and attach the birth certificate. Your HR business partner confirms the dates within 10 "
            "working days, and your manager is informed automatically.",
            "In Workday under Absences → Parental leave at least 7 weeks before the start, with the birth "
            "certificate; HR confirms within 10 working days.",
            "The company does not pay salary during parental leave; the state parental allowance replaces "
            "part of your income. On top of that, every parent receives a company top-up of 20% of base "
            "salary for the first 8 weeks of leave.",
            "No salary; the state parental allowance applies, plus a company top-up of 20% of base salary "
            "for the first 8 weeks.",
        ),
        _leave(
            "study leave",
            "time off to study for exams",
            "Employees with at least 6 months of service get up to 5 paid study days per year for exams and "
            "job-related courses, plus the exam day itself. The course must be part of the development plan "
            "agreed with your manager.",
            "Up to 5 paid study days a year plus the exam day, after 6 months of service, for courses in "
            "your agreed development plan.",
            "Request study leave in Workday under Absences → Study leave at least 4 weeks ahead and attach "
            "the course enrolment or exam invitation. Both your line manager and the Learning team approve "
            "it.",
            "In Workday under Absences → Study leave at least 4 weeks ahead, with the enrolment or exam "
            "invitation; your manager and the Learning team approve.",
            "Study days are paid at full base salary. If you leave within 12 months after a course the "
            "company paid for, you may have to repay part of the course fee, but never the salary for study "
            "days.",
            "Fully paid; only course fees may have to be partly repaid if you leave within 12 months.",
        ),
        _leave(
            "unpaid leave",
            "a career break",
            "After 12 months of service you can ask for unpaid leave of up to 3 months in a row, or a "
            "sabbatical of up to 6 months after 5 years. Unpaid leave is granted at the company's "
            "discretion, depending on the workload in your team.",
            "Up to 3 consecutive months after 12 months of service (up to 6 months after 5 years), at the "
            "company's discretion.",
            "Discuss unpaid leave with your manager first, then submit it in Workday under Absences → Unpaid "
            "leave at least 2 months before the start. It needs the approval of your line manager and of the "
            "head of your department.",
            "Talk to your manager, then submit it in Workday (Absences → Unpaid leave) at least 2 months "
            "ahead; your manager and head of department approve.",
            "No salary is paid during unpaid leave and no annual leave accrues. Company health insurance "
            "continues for the first month; after that you arrange voluntary cover, which HR helps you set "
            "up.",
            "No salary and no accrual of annual leave; health insurance continues for one month only.",
        ),
        _leave(
            "special leave for family events",
            "time off for a wedding or a funeral",
            "Paid special leave is granted for these family events: your own wedding (2 days), the birth of "
            "your child (2 days), moving house (1 day per year), the death of a spouse, child or parent (3 "
            "days) and the death of another close relative (1 day).",
            "Wedding 2 days, birth of your child 2 days, moving house 1 day a year, death of a spouse, child "
            "or parent 3 days, other close relative 1 day.",
            "Record special leave in Workday under Absences → Special leave and choose the event as soon as "
            "you know the date; bereavement leave can be recorded afterwards. Attach a certificate, such as "
            "the marriage or death certificate, within 4 weeks.",
            "In Workday under Absences → Special leave, choosing the event (afterwards for bereavement), "
            "with a certificate within 4 weeks.",
            "Special leave is fully paid and does not reduce your annual leave. Days that are not taken "
            "within 4 weeks of the event lapse.",
            "Fully paid, does not reduce annual leave, and must be taken within 4 weeks of the event.",
        ),
    ),
    sections={
        "entitlement": section(
            "Entitlement",
            "{entitlement} Past absences and any remaining balance are shown in Workday under My absences.",
            "{entitlement_answer}",
            ["How much {name} am I entitled to?", "What is the entitlement for {name}?"],
            ["What's my allowance for {casual}?", "Is there a limit on {casual}, and how much do I get?"],
        ),
        "request": section(
            "How to request it",
            "{request}",
            "{request_answer}",
            ["How do I request {name}?", "What is the procedure for applying for {name}?"],
            ["I'd like to take {casual} — what's the process and how far ahead do I have to sort it out?",
             "Where do I put in for {casual}, and who signs it off?"],
        ),
        "pay": section(
            "Pay during the leave",
            "{pay}",
            "{pay_answer}",
            ["Is {name} paid?", "How is pay calculated during {name}?"],
            ["Do I still get my salary during {casual}?", "Will {casual} cost me money?"],
        ),
    },
)


def _vpn(platform: str, device: str, install_how: str, install_note: str, fix: str, logs: str) -> Fields:
    return {
        "platform": platform,
        "device": device,
        "install_how": install_how,
        "install_note": install_note,
        "fix": fix,
        "logs": logs,
    }


VPN = FamilyText(
    title="VPN on {platform}",
    entities=(
        _vpn(
            "macOS",
            "Mac",
            "from the Self Service app (search for SecureLink)",
            "When prompted, allow the system extension under System Settings → Privacy & Security, then "
            "restart the Mac.",
            "remove the profile under System Settings → VPN, quit SecureLink and reinstall it from Self "
            "Service",
            "~/Library/Logs/SecureLink",
        ),
        _vpn(
            "Windows",
            "Windows laptop",
            "from Software Center (Applications → SecureLink)",
            "The installer restarts the laptop at the end, so save your work and keep the charger connected.",
            "run SecureLink Repair from the Start menu, which resets the virtual network adapter",
            "C:\\ProgramData\\SecureLink\\Logs",
        ),
        _vpn(
            "Linux",
            "Linux machine",
            "from the company package repository (sudo apt install securelink or sudo dnf install "
            "securelink)",
            "Only Ubuntu 22.04 and 24.04 and Fedora 40 or later are supported; the client runs as the "
            "securelink systemd service.",
            "restart the service with sudo systemctl restart securelink and check that the system clock is "
            "in sync",
            "the journal (journalctl -u securelink)",
        ),
        _vpn(
            "iOS",
            "iPhone or iPad",
            "from the Company Portal app",
            "The device must be enrolled in mobile device management; personal, unmanaged devices are not "
            "supported.",
            "delete the VPN profile under Settings → General → VPN & Device Management and reinstall the app "
            "from Company Portal",
            "Company Portal under Help → Send logs",
        ),
        _vpn(
            "Android",
            "Android phone",
            "from the managed Google Play store",
            "Choose the work profile (apps with the briefcase badge), not your personal profile.",
            "clear the app storage under Settings → Apps → SecureLink (work) and sign in again",
            "SecureLink under Settings → Export logs",
        ),
    ),
    sections={
        "install": section(
            "Installation",
            "SecureLink {version} is the supported VPN client for {platform}. Install it {install_how}. "
            "{install_note} Older client versions are blocked by the gateway.",
            "Install SecureLink {version} {install_how}. {install_note}",
            ["How do I install the VPN client on {platform}?", "Which VPN client version is supported on "
             "{platform} and where do I get it?"],
            ["How do I get the VPN app onto my {device}?", "My {device} has no VPN yet — where do I download "
             "it from?"],
        ),
        "connect": section(
            "Connecting",
            "To connect on {platform}, open SecureLink, enter the gateway address {gateway} and sign in with "
            "your company account, then confirm the MFA prompt in Okta Verify. Sessions end after "
            "{timeout:hour|hours} and you have to sign in again. Split tunnelling is on, so only company "
            "traffic goes through the VPN.",
            "Open SecureLink, use gateway {gateway}, sign in with your company account and confirm MFA; "
            "sessions end after {timeout:hour|hours}.",
            ["How do I connect to the VPN on {platform}?", "What gateway address do I use for the VPN on "
             "{platform}?"],
            ["What do I type in to get onto the company network from my {device}?",
             "Why does my {device} keep dropping off the company network after a while, and how do I get "
             "back on?"],
        ),
        "troubleshoot": section(
            "Troubleshooting",
            "If SecureLink on {platform} shows error {error}, your session token has expired or the VPN "
            "profile is damaged: {fix}, then connect to the gateway again. The logs the service desk asks "
            "for are in {logs}. If it still fails, raise a ticket in the service portal and attach the logs.",
            "Error {error} means an expired session or a damaged profile: {fix}, then reconnect; if it "
            "persists, open a ticket with the logs from {logs}.",
            ["What should I do about VPN error {error} on {platform}?", "How do I fix SecureLink error "
                                                                        "{error} "
             "on {platform}?"],
            ["The VPN on my {device} says {error} and won't let me in — any idea how to fix it?",
             "SecureLink on my {device} throws code {error}; what do I try before calling IT?"],
        ),
    },
)


def _system(system: str, purpose: str, group: str) -> Fields:
    return {"system": system, "purpose": purpose, "group": group}


ACCESS = FamilyText(
    title="Access to {system}",
    entities=(
        _system("Jira", "issue and project tracking", "jira-users"),
        _system("Confluence", "the company wiki", "confluence-users"),
        _system("GitLab", "source code and CI/CD pipelines", "gitlab-developers"),
        _system("Salesforce", "the CRM with customer and deal records", "salesforce-users"),
        _system("Grafana", "monitoring dashboards and alerts", "grafana-viewers"),
        _system("SAP", "the ERP for finance, purchasing and inventory", "sap-users"),
        _system("Tableau", "business intelligence reports", "tableau-explorers"),
        _system("Figma", "design files and prototypes", "figma-editors"),
        _system("Workday", "the HR system with personal records, absences and payslips", "workday-hr"),
    ),
    sections={
        "eligibility": section(
            "Who can get access",
            "{system} ({purpose}) is available to {roles:roles}. Anyone else needs a business reason "
            "confirmed by the system owner, {owner:person}. Licences are limited, so accounts are created "
            "only for people who will use {system} at least once a month.",
            "Access is for {roles:roles}; anyone else needs a business reason confirmed by the owner, "
            "{owner:person}.",
            ["Who is eligible for access to {system}?", "Who can get a {system} account?"],
            ["Am I even allowed to use {system} in my job?", "Does my role qualify me for a {system} login, "
             "and who decides if it doesn't?"],
        ),
        "request": section(
            "Requesting access",
            "Request access to {system} in the service portal under Access requests → {system} and choose "
            "the {group} group. Your line manager approves the request first; the owner's team then grants "
            "it within {sla:working day|working days}. You get an email as soon as the account is ready.",
            "In the service portal (Access requests → {system}, group {group}); after your manager's "
            "approval it is granted within {sla:working day|working days}.",
            ["How do I request access to {system}?", "How long does it take to get access to {system}?"],
            ["I need to get into {system} — how do I ask for that and how long will I wait?",
             "What's the quickest way to get a {system} login set up?"],
        ),
        "review": section(
            "Access reviews",
            "Every {review_months:month|months} the owner of {system} reviews who has access and removes "
            "accounts that are no longer needed. Accounts that have not been used for {inactive_days} days "
            "are disabled automatically and can be restored only with a new access request.",
            "Access is reviewed every {review_months:month|months}; accounts unused for {inactive_days} days "
            "are disabled and need a new request.",
            ["How often is access to {system} reviewed?", "When is an unused {system} account disabled?"],
            ["I haven't opened {system} in ages — will my login stop working at some point?",
             "How regularly does someone check who still has {system} rights?"],
        ),
    },
)


def _kit(team: str, role: str, device_holder: str) -> Fields:
    return {"team": team, "role": role, "Role": role[0].upper() + role[1:], "holder": device_holder}


EQUIPMENT = FamilyText(
    title="{team} equipment standard",
    entities=(
        _kit("Engineering", "engineers", "a developer"),
        _kit("Design", "designers", "a designer"),
        _kit("Sales", "sales staff", "a salesperson"),
        _kit("Support", "support agents", "someone in customer support"),
        _kit("Management", "people managers", "a manager"),
    ),
    sections={
        "laptop": section(
            "Standard laptop",
            "The standard laptop for {role} is the {laptop}. At the desk you also get "
            "{monitors:monitor|monitors}, a docking station, a keyboard and a mouse. Any other model needs a "
            "business case approved by your head of department and by IT.",
            "The {laptop}, plus {monitors:monitor|monitors} and a docking station at the desk.",
            ["What laptop do {role} get?", "What is the standard laptop model for {role}?"],
            ["Which computer will the company hand me as {holder}?", "As {holder}, what machine and screens "
             "should I expect on day one?"],
        ),
        "replacement": section(
            "Replacement",
            "Laptops for {role} are replaced every {cycle} months; IT contacts you a month before the due "
            "date. A broken or stolen laptop is replaced earlier through the service desk. Return the old "
            "device within {return_days:working day|working days} of receiving the new one.",
            "Every {cycle} months, or earlier via the service desk if broken or stolen; return the old one "
            "within {return_days:working day|working days}.",
            ["How often are laptops replaced for {role}?", "When do {role} get a new laptop?"],
            ["My work computer is getting old — when will I get a fresh one as {holder}?",
             "As {holder}, how long do I keep my machine before it gets swapped out?"],
        ),
        "peripherals": section(
            "Peripherals and headset",
            "{Role} have a peripherals budget of {budget:eur} every {period:year|years} for items such as a "
            "webcam, a second keyboard or an ergonomic mouse; order them in the service portal under "
            "Equipment. The standard headset is the {headset}, which does not count against the budget.",
            "{budget:eur} every {period:year|years}, ordered in the service portal; the {headset} headset "
            "comes on top.",
            ["What is the peripherals budget for {role}?", "Which headset do {role} get?"],
            ["How much can I spend on extra gadgets like a webcam or mouse as {holder}?",
             "As {holder}, what accessories am I allowed to order, and what headphones come with the job?"],
        ),
    },
)


def _level(level: str, definition: str, storage: str, sharing: str, disposal: str) -> Fields:
    return {
        "level": level,
        "lower": level.lower(),
        "definition": definition,
        "storage": storage,
        "sharing": sharing,
        "disposal": disposal,
    }


CLASSIFICATION = FamilyText(
    title="Data classification: {level}",
    entities=(
        _level(
            "Public",
            "Public information is approved for anyone outside the company: published marketing material, "
            "press releases, job ads and the public website. Its disclosure causes no harm. Only Marketing "
            "and Communications can declare information public.",
            "Public information can be stored anywhere, including personal devices, but the master copy "
            "belongs in the Marketing shared drive so that outdated versions can be withdrawn.",
            "Public information can be shared freely with anyone and through any channel. Check that you "
            "send the latest published version.",
            "Public information needs no special disposal: delete or recycle copies as usual. Withdrawn "
            "material is removed from the website within 5 working days.",
        ),
        _level(
            "Internal",
            "Internal is the default level for information used in daily work but not meant for outsiders: "
            "the wiki, internal announcements, org charts and most project documents. Disclosure would be "
            "inconvenient but not seriously harmful.",
            "Internal information may be stored only on company systems: Google Drive, Confluence, Jira or a "
            "company laptop. It must not be copied to personal cloud accounts or private USB sticks.",
            "Internal information can be shared with all employees and with contractors who have a company "
            "account. Sharing it with anyone outside needs a signed NDA and your manager's consent.",
            "Delete internal files as usual. Printed internal documents go into the grey confidential-waste "
            "bins on every floor, not into the paper recycling.",
        ),
        _level(
            "Confidential",
            "Confidential information is limited to the people who need it for their work: customer data, "
            "contracts, salaries, unreleased financial results and source code. Disclosure could cause "
            "financial loss or legal trouble. Documents carry the label CONFIDENTIAL in the header.",
            "Confidential information is kept only in access-controlled company systems, in folders "
            "restricted to named people or groups, and never on personal devices. Printing is allowed only "
            "on printers with secure release.",
            "Share confidential information only with named colleagues who need it. External parties receive "
            "it only under an NDA and through the encrypted file transfer, never as a plain email "
            "attachment; 'anyone with the link' sharing is forbidden.",
            "Confidential files are deleted in the system itself, which purges backups after 30 days. Paper "
            "goes into the locked confidential-waste bins and is shredded on site; storage media are handed "
            "to IT for certified destruction.",
        ),
        _level(
            "Restricted",
            "Restricted is the highest level: information whose disclosure could seriously harm the company "
            "or individuals, such as encryption keys, merger plans, health data and details of security "
            "incidents. Access is approved person by person by the information owner and logged.",
            "Restricted information lives only in the designated vaults: the secrets manager for keys and "
            "credentials and the restricted drive with per-document access for everything else. Never keep "
            "it on laptops, in email or in chat.",
            "Restricted information is shared only with people on the owner's access list, by granting "
            "access in the vault rather than sending copies. Any disclosure outside the company needs "
            "written approval from the CISO and Legal.",
            "Restricted data is destroyed by the IT Security team on request, and physical media are "
            "shredded with a destruction certificate kept for 5 years. Do not delete restricted records "
            "yourself: many are under legal retention.",
        ),
    ),
    sections={
        "definition": section(
            "Definition",
            "{definition}",
            "{definition}",
            ["What counts as {lower} information?", "What does the {level} classification level mean?"],
            ["Which kinds of documents would be labelled {lower}?", "How do I tell whether something I'm "
             "working on is {lower} data?"],
        ),
        "storage": section(
            "Storage",
            "{storage}",
            "{storage}",
            ["Where may {lower} information be stored?", "What are the storage rules for {lower} data?"],
            ["Can I keep {lower} files on my own laptop or in my private cloud?",
             "Where am I supposed to save stuff that's classed as {lower}?"],
        ),
        "sharing": section(
            "Sharing",
            "{sharing}",
            "{sharing}",
            ["Who can I share {lower} information with?", "How may {lower} data be shared?"],
            ["Is it OK to send {lower} documents to somebody outside the company?",
             "A partner wants a file marked {lower} — am I allowed to pass it on, and how?"],
        ),
        "disposal": section(
            "Disposal",
            "{disposal}",
            "{disposal}",
            ["How do I dispose of {lower} information?", "How are {lower} documents destroyed?"],
            ["What's the right way to get rid of {lower} papers and files I don't need any more?",
             "Can I just bin old {lower} printouts?"],
        ),
    },
)


def _trip(name: str, where: str) -> Fields:
    return {"name": name, "Name": name[0].upper() + name[1:], "where": where}


TRIP = FamilyText(
    title="Travel policy: {Name}",
    entities=(
        _trip("domestic trips", "somewhere in the country"),
        _trip("trips within Europe", "somewhere in Europe"),
        _trip("trips to North America", "to the US or Canada"),
        _trip("trips to the Asia-Pacific region", "to Asia or Australia"),
        _trip("trips to the rest of the world", "to Africa, Latin America or the Middle East"),
    ),
    sections={
        "allowance": section(
            "Daily allowance and hotels",
            "For {name} the daily allowance (per diem) is {per_diem:eur} and the hotel limit is {hotel:eur} "
            "per night, taxes included. Hotels above the limit need approval in advance; book through the "
            "travel portal so that the limit is applied automatically.",
            "A per diem of {per_diem:eur} and hotels up to {hotel:eur} per night.",
            ["What is the per diem for {name}?", "What is the hotel limit per night for {name}?"],
            ["How much can I spend on food and a room each day when I travel {where}?",
             "When I'm sent {where} for work, what does the company cover per night and per day?"],
        ),
        "flights": section(
            "Flights",
            "Cabin class for {name}: {business_hours:cabin}. Book flights through the travel portal at least "
            "{lead_days:day|days} before departure to get the negotiated fares; later bookings need a short "
            "justification. Checked baggage is allowed when the trip is longer than three nights.",
            "Cabin class: {business_hours:cabin}; book in the travel portal at least {lead_days:day|days} "
            "ahead.",
            ["Which cabin class can I book for {name}?", "How far in advance do I have to book flights for "
             "{name}?"],
            ["Am I allowed to fly business when I go {where}?", "If I'm flying {where} for work, how early "
             "should I grab a ticket and in which class?"],
        ),
        "approval": section(
            "Approval",
            "{Name} need approval from {approver:approver} in the travel portal before anything is booked. "
            "The approval covers the estimated cost at the allowance and hotel rates and is valid for "
            "{valid_days} days; if the trip moves later than that, request a new approval.",
            "From {approver:approver} in the travel portal before booking; the approval is valid for "
            "{valid_days} days.",
            ["Who approves {name}?", "What approval do I need before booking {name}?"],
            ["Whose OK do I need before I go {where} on business?", "I've been asked to travel {where} — who "
             "has to sign off first, and how long does the sign-off last?"],
        ),
    },
)


def _department(dept: str, joiner: str) -> Fields:
    return {"dept": dept, "joiner": joiner}


DEPARTMENT = FamilyText(
    title="Onboarding in {dept}",
    entities=(
        _department("Sales", "a new salesperson"),
        _department("Engineering", "a new engineer"),
        _department("Customer Support", "a new support agent"),
        _department("Finance", "a new finance hire"),
        _department("Marketing", "a new marketer"),
        _department("People & Culture", "a new HR hire"),
        _department("Legal", "a new lawyer or paralegal"),
        _department("Operations", "a new operations hire"),
    ),
    sections={
        "first-week": section(
            "Your first week",
            "In your first week in {dept}, the onboarding coordinator {coordinator:person} walks you through "
            "the welcome plan. The team intro session is on {intro_day:weekday} at {intro_time}, and you "
            "complete the e-learning course {course} by the end of the week. An onboarding buddy supports "
            "you for your first {buddy_weeks} weeks.",
            "Intro session on {intro_day:weekday} at {intro_time}, e-learning {course} by Friday, "
            "coordinator {coordinator:person}, and a buddy for {buddy_weeks} weeks.",
            ["What happens in the first week in {dept}?", "When is the {dept} team intro session for new "
             "joiners?"],
            ["I'm starting in {dept} soon — what does week one look like?", "As {joiner}, which course do I "
             "have to finish straight away and who's looking after me?"],
        ),
        "tools": section(
            "Tools",
            "New joiners in {dept} work with {toolset:toolset}. Accounts are created before your first day "
            "and appear in the Okta dashboard. If one is missing, ask {coordinator:person} rather than the "
            "service desk, because department tools are requested in one batch.",
            "{toolset:toolset}; missing accounts go to {coordinator:person}.",
            ["Which tools does {dept} use?", "What software do new joiners in {dept} get access to?"],
            ["As {joiner}, which apps will I be living in every day?", "One of my {dept} logins "
             "isn't there — who sorts that out?"],
        ),
        "probation": section(
            "Probation",
            "Probation in {dept} lasts {probation:month|months}. Your manager sets three to five goals in "
            "your first week and reviews them with you halfway through and at the end; the final review "
            "decides whether the employment continues. During probation either side can give two weeks' "
            "notice.",
            "{probation:month|months}, with goals set in the first week and reviewed halfway and at the end.",
            ["How long is probation in {dept}?", "How is probation assessed in {dept}?"],
            ["How long is the trial period for {joiner}, and how do they decide if I stay?",
             "When does my {dept} trial period end and what gets looked at?"],
        ),
    },
)

OFFICES = (
    ("Berlin", "Friedrichstraße 68, 10117 Berlin"),
    ("Munich", "Leopoldstraße 150, 80804 Munich"),
    ("Hamburg", "Am Sandtorkai 41, 20457 Hamburg"),
    ("Amsterdam", "Keizersgracht 452, 1016 GD Amsterdam"),
    ("Warsaw", "ul. Prosta 36, 00-838 Warsaw"),
    ("Lisbon", "Avenida da Liberdade 110, 1250-146 Lisbon"),
    ("Prague", "Na Příkopě 22, 110 00 Prague"),
    ("Vienna", "Mariahilfer Straße 77, 1060 Vienna"),
    ("Barcelona", "Carrer de Pallars 193, 08005 Barcelona"),
)

OFFICE = FamilyText(
    title="{city} office",
    entities=tuple({"city": city, "address": address} for city, address in OFFICES),
    sections={
        "hours": section(
            "Opening hours and reception",
            "The {city} office ({address}) is open from {open} to {close} on weekdays and {saturday} on "
            "Saturdays; it is closed on Sundays and public holidays. Reception is on floor {floor}, phone "
            "extension {reception_ext}. Outside opening hours the building is alarmed and badges do not open "
            "the main door.",
            "Weekdays {open}–{close}, Saturdays {saturday}; reception on floor {floor}, extension "
            "{reception_ext}.",
            ["What are the opening hours of the {city} office?", "When is the {city} office open on "
             "Saturdays?"],
            ["How early can I get into the {city} building, and when do they lock up?",
             "Can I pop into the {city} office at the weekend, and what's the number for the front desk?"],
        ),
        "badge": section(
            "Badges",
            "Badges for the {city} office are issued at reception on floor {floor} by "
            "{badge_contact:person}. A new badge is ready {badge_days:working day|working days} after your "
            "manager requests it in the service portal. Report a lost badge at once; a replacement costs "
            "{lost_fee:eur}, deducted from your pay.",
            "From {badge_contact:person} at reception (floor {floor}), ready {badge_days:working day|working "
            "days} after the request; a replacement costs {lost_fee:eur}.",
            ["How do I get a badge for the {city} office?", "How much does a replacement badge cost in the "
             "{city} office?"],
            ["I lost my pass for the {city} building — what now, and will I have to pay?",
             "Who hands out entry cards in {city}, and how long do I wait for mine?"],
        ),
        "parking": section(
            "Parking",
            "The garage of the {city} office is on level {level} and has {spaces} spaces, {ev} of them with "
            "EV chargers. The barrier opens with your office badge once a parking permit has been added to "
            "it. Permits are issued by {permit_contact:person} for {permit_months:month|months} at a time; "
            "spaces are not assigned.",
            "Level {level}, {spaces} spaces ({ev} with chargers); ask {permit_contact:person} to add a "
            "permit to your badge, valid {permit_months:month|months}.",
            ["Is there parking at the {city} office?", "How do I get a parking permit for the {city} "
                                                       "office?"],
            ["Can I drive to work in {city} and leave my car in the building?",
             "I've got an electric car — is there somewhere to charge it at the {city} site, and who do I "
             "ask for a spot?"],
        ),
        "rooms": section(
            "Meeting rooms",
            "The {city} office has {rooms} bookable meeting rooms. The largest, {big_room:room}, seats "
            "{big_cap} people and has video conferencing. Rooms are booked through the calendar; a single "
            "booking may last at most {max_hours:hour|hours}, and rooms not checked in within 15 minutes are "
            "released.",
            "{rooms} rooms; the largest is {big_room:room} for {big_cap} people; bookings up to "
            "{max_hours:hour|hours}.",
            ["What is the largest meeting room in the {city} office?", "How long can I book a meeting room "
                                                                       "for "
             "in the {city} office?"],
            ["Where in {city} can I fit a big group for a workshop?", "How many people fit in the biggest "
             "space in {city}, and can I grab it for a whole afternoon?"],
        ),
        "guests": section(
            "Guests",
            "Register guests for the {city} office in the visitor system at least {visitor_hours:hour|hours} "
            "before they arrive. Guests sign in at reception during opening hours and must be accompanied by "
            "their host at all times. Reception hands out guest Wi-Fi vouchers valid for "
            "{voucher_hours:hour|hours}.",
            "Register them at least {visitor_hours:hour|hours} ahead; they sign in at reception and get a "
            "Wi-Fi voucher valid for {voucher_hours:hour|hours}.",
            ["How do I register a visitor for the {city} office?", "How long is the guest Wi-Fi voucher "
                                                                   "valid "
             "in the {city} office?"],
            ["A client is coming to see me in {city} — what do I need to set up beforehand?",
             "Can my visitor in {city} get online, and for how long?"],
        ),
    },
)

GRADE = FamilyText(
    title="Benefits for grade {grade}",
    entities=tuple({"grade": f"G{n}"} for n in range(1, 6)),
    sections={
        "health": section(
            "Health insurance",
            "In grade {grade} you are insured under the {plan:plan} health plan, which covers {cover:cover}. "
            "Dental treatment is reimbursed at {dental}% of the invoice, and a preventive check-up is paid "
            "every {checkup_months} months. Claims are submitted in the insurer's app.",
            "The {plan:plan} plan covering {cover:cover}; dental at {dental}% and a check-up every "
            "{checkup_months} months.",
            ["What health insurance do {grade} employees get?", "How much dental treatment is reimbursed for "
             "grade {grade}?"],
            ["I'm a {grade} — is my family covered by the medical plan, and what about the dentist?",
             "Which medical cover comes with a {grade} job?"],
        ),
        "learning": section(
            "Learning budget",
            "Grade {grade} has a learning budget of {learning:eur} per calendar year for courses, books, "
            "certifications and conference tickets, plus {conf_days:day|days} of paid conference leave. "
            "Unused budget does not carry over, and your manager approves each purchase in the learning "
            "portal.",
            "{learning:eur} a year plus {conf_days:day|days} of conference leave; it does not carry over.",
            ["What is the learning budget for grade {grade}?", "How many conference days do {grade} "
                                                               "employees "
             "get?"],
            ["How much money can a {grade} spend on training each year?", "As a {grade}, can I go to a "
             "conference on company time, and for how long?"],
        ),
        "wellbeing": section(
            "Sport and wellbeing",
            "In grade {grade} you get a sport and wellbeing allowance of {sport:eur} per month, paid with "
            "your salary against receipts for the gym, classes or sports equipment. Everyone, whatever their "
            "grade, can use the free counselling line of the Employee Assistance Programme.",
            "{sport:eur} per month against receipts, plus the free counselling line.",
            ["What is the sport allowance for grade {grade}?", "What wellbeing benefits do {grade} employees "
             "get?"],
            ["Does the company chip in for my gym membership as a {grade}, and how much?",
             "How much do I get back each month for fitness stuff in {grade}?"],
        ),
        "bonus": section(
            "Bonus",
            "The target bonus for grade {grade} is {bonus}% of annual base salary. The actual payout depends "
            "on company results and your performance rating, and it is paid with the {bonus_month:month} "
            "salary after the year-end review.",
            "{bonus}% of annual base salary as a target, paid with the {bonus_month:month} salary.",
            ["What is the target bonus for grade {grade}?", "When is the bonus paid for grade {grade}?"],
            ["How big is the yearly bonus for a {grade}, and which month does it land?",
             "As a {grade}, what share of my pay could I get as a bonus?"],
        ),
    },
)


def _category(category: str, examples: str) -> Fields:
    return {"category": category, "examples": examples}


PROCUREMENT = FamilyText(
    title="Buying {category}",
    entities=(
        _category("hardware", "monitors, docking stations, phones and test devices"),
        _category("software", "licences, SaaS subscriptions and plug-ins"),
        _category("office supplies", "stationery, printer paper and kitchen supplies"),
        _category("external services", "consultants, agencies and freelancers"),
        _category("furniture", "desks, chairs, storage and acoustic panels"),
        _category("marketing materials", "printed brochures, banners and branded merchandise"),
        _category("event services", "venues, catering and team events"),
    ),
    sections={
        "thresholds": section(
            "Approval thresholds",
            "Purchases of {category} ({examples}) up to {manager_limit:eur} need only your manager's "
            "approval. Up to {cfo_limit:eur} your head of department approves as well and you need {quotes} "
            "competing quotes; anything above {cfo_limit:eur} also needs the CFO.",
            "Manager alone up to {manager_limit:eur}; head of department and {quotes} quotes up to "
            "{cfo_limit:eur}; above that also the CFO.",
            ["What are the approval limits for buying {category}?", "How many quotes do I need when buying "
             "{category}?"],
            ["Up to what amount can my boss alone OK a purchase of {category}?", "When does buying "
                                                                                 "{category} "
             "need sign-off from higher up, and do I have to shop around first?"],
        ),
        "ordering": section(
            "Ordering",
            "Order {category} through the procurement portal, never directly with a supplier. Once the "
            "request is approved, the buyer {buyer:person} places the order within {order_days:working "
            "day|working days}, and the supplier usually delivers within {delivery_days} days. Invoices must "
            "quote the purchase order number or they are returned unpaid.",
            "Through the procurement portal; {buyer:person} orders within {order_days:working day|working "
            "days} of approval, and the supplier delivers within about {delivery_days} days.",
            ["How do I order {category}?", "How long does it take to receive {category} after ordering?"],
            ["Who actually places the order when we need {category}, and when will it show up?",
             "Can I just ring a supplier for {category}, or is there a process?"],
        ),
        "vendors": section(
            "Preferred vendor",
            "The preferred vendor for {category} is {vendor:vendor}, under a framework contract that runs "
            "until the end of {contract_year}. You may buy from another supplier only if {vendor:vendor} "
            "cannot deliver within {max_wait} days or does not offer the item; state the reason in the "
            "request.",
            "{vendor:vendor}, contracted until the end of {contract_year}; another supplier only if they "
            "cannot deliver within {max_wait} days.",
            ["Who is the preferred vendor for {category}?", "When may I buy {category} from a supplier other "
             "than the preferred one?"],
            ["Which company are we supposed to get our {category} from?", "Am I allowed to go elsewhere for "
             "{category} if our usual supplier is slow?"],
        ),
    },
)

TEAMS = (
    "Payments",
    "Search",
    "Mobile",
    "Platform",
    "Data",
    "Identity",
    "Checkout",
    "Notifications",
    "Billing",
)

TEAM = FamilyText(
    title="On-call: {team} team",
    entities=tuple({"team": team} for team in TEAMS),
    sections={
        "rotation": section(
            "Rotation",
            "The {team} team's on-call rotation has {size} engineers, each on call for one week at a time, "
            "primary and secondary in turn. Handover is every {handover_day:weekday} at {handover_time} in "
            "{channel}, where the outgoing engineer posts open incidents and follow-ups.",
            "{size} engineers, one week each; handover on {handover_day:weekday} at {handover_time} in "
            "{channel}.",
            ["How does the {team} on-call rotation work?", "When is the {team} on-call handover?"],
            ["How often will I end up holding the pager for {team}, and when does my shift get passed on?",
             "Where and at what time do {team} folks swap on-call duty?"],
        ),
        "escalation": section(
            "Escalation",
            "Pages for the {team} team must be acknowledged within {ack} minutes; otherwise PagerDuty "
            "escalates to the secondary on-call. If nobody has acknowledged after {escalate} minutes, the "
            "engineering manager {manager:person} is paged. For a SEV1, page the incident commander at once "
            "instead of waiting for the escalation.",
            "Acknowledge within {ack} minutes, then it goes to the secondary; after {escalate} minutes to "
            "{manager:person}.",
            ["What is the escalation policy for {team} on-call?", "How quickly must a {team} page be "
             "acknowledged?"],
            ["If I sleep through a {team} alert, who gets woken up next and after how long?",
             "How long can a {team} alert go unanswered before it goes up the chain?"],
        ),
        "dashboards": section(
            "Dashboards and runbooks",
            "The {team} team's main Grafana dashboard is '{dashboard}'. Alerts are posted to {alerts}, and "
            "runbooks for every alert live in the Confluence space {space}; link the runbook section when "
            "you hand over an open alert.",
            "Dashboard '{dashboard}', alerts in {alerts}, runbooks in Confluence space {space}.",
            ["Where are the {team} runbooks?", "Which dashboard does the {team} on-call use?"],
            ["Where do I look first when {team} alarms go off, and where's the how-to for fixing them?",
             "Which Slack channel do {team} alerts land in?"],
        ),
        "services": section(
            "Services and SLOs",
            "The {team} team owns {service_a} and {service_b}. Both have an availability SLO of {slo} per "
            "month; when less than {budget_left}% of the monthly error budget is left, feature deployments "
            "stop and only fixes are released until the budget recovers.",
            "The team owns {service_a} and {service_b}, with a {slo} monthly availability SLO; feature "
            "releases freeze below {budget_left}% of the error budget.",
            ["Which services does the {team} team own?", "What is the SLO for the {team} team's services?"],
            ["What systems is {team} responsible for, and how reliable do they have to be?",
             "When does {team} have to stop shipping features because of outages?"],
        ),
    },
)


def _contract(title: str, kind: str, short: str, article: str) -> Fields:
    return {
        "title": title,
        "kind": kind,
        "short": short,
        "a_short": f"{article} {short}",
        "A_short": f"{article.capitalize()} {short}",
    }


CONTRACT = FamilyText(
    title="Contracts: {title}",
    entities=(
        _contract("Non-disclosure agreements", "non-disclosure agreements", "NDA", "an"),
        _contract("Service agreements", "service agreements with consultants and agencies", "service "
                                                                                            "agreement",
                  "a"),
        _contract("Licence agreements", "software licence agreements", "licence agreement", "a"),
        _contract("Leases", "office and equipment leases", "lease", "a"),
        _contract("Partnership agreements", "partnership and reseller agreements", "partnership "
                                                                                   "agreement", "a"),
        _contract("Supply agreements", "supply agreements for goods", "supply agreement", "a"),
    ),
    sections={
        "template": section(
            "Template",
            "For {kind}, always start from template {template_id} in the legal templates library; do not "
            "reuse a previously signed contract as a draft. If the other party insists on its own paper, "
            "send it to Legal unchanged, together with a summary of the commercial terms.",
            "Template {template_id} from the legal templates library; the other party's paper goes to Legal "
            "unchanged.",
            ["Which template do I use for {a_short}?", "Where do I find the template for {kind}?"],
            ["I need to draft {a_short} — is there a standard document to start from?",
             "The other side sent their own {short} wording — can I just edit that?"],
        ),
        "approval": section(
            "Review and approval",
            "Every {short} is reviewed by {lawyer:person} from Legal within {review_days:working day|working "
            "days} of a complete request. If the total contract value exceeds {limit:eur}, the CFO must "
            "approve it as well; without these approvals nobody may sign.",
            "Legal review by {lawyer:person} within {review_days:working day|working days}; CFO approval "
            "above {limit:eur}.",
            ["Who reviews {a_short}?", "When does {a_short} need CFO approval?"],
            ["Which lawyer looks over {a_short}, and how long does it take?", "Does the finance chief have "
             "to bless {a_short}, and from what amount?"],
        ),
        "signing": section(
            "Signing and storage",
            "{A_short} is signed in the e-signature tool once all approvals are recorded; only people with "
            "signing authority on the authority matrix may sign. The signed PDF is filed automatically in "
            "the contract register and kept for {retention} years after the contract ends.",
            "In the e-signature tool after approval, by someone with signing authority; kept {retention} "
            "years after the contract ends.",
            ["How do I sign {a_short}?", "How long are signed {kind} kept?"],
            ["Who's allowed to put their name on {a_short}, and where does the final copy end up?",
             "Once {a_short} is approved, how do we make it official?"],
        ),
    },
)


def _extra_access(n: int) -> Fields:
    return _system(f"Service {n}", "an internal line-of-business application", f"service{n}-users")


def _extra_department(n: int) -> Fields:
    return _department(f"Department {n}", f"a new joiner in Department {n}")


def _extra_office(n: int) -> Fields:
    return {"city": f"Hub {n}", "address": f"Unit {n}, Riverside Business Park"}


def _extra_procurement(n: int) -> Fields:
    return _category(f"catalogue category {n}", f"items listed under code C{n} in the procurement catalogue")


def _extra_team(n: int) -> Fields:
    return {"team": f"Product {n}"}


EXTRA_ENTITIES: dict[str, Callable[[int], Fields]] = {
    "access": _extra_access,
    "department": _extra_department,
    "office": _extra_office,
    "procurement": _extra_procurement,
    "team": _extra_team,
}


def extra_entity(family: str, n: int) -> Fields:
    return EXTRA_ENTITIES[family](n)


PAGES = {
    "remote-work": PageText(
        title="Remote work",
        sections={
            "eligibility": section(
                "Eligibility",
                "Employees who have passed probation can work remotely up to 3 days a week, as agreed with "
                "their manager; the other days are spent in the office. Roles that need to be on site, such "
                "as facilities and warehouse staff, are excluded, and new joiners work from the office "
                "during probation.",
                "Employees past probation, up to 3 days a week with their manager's agreement; on-site roles "
                "are excluded.",
                ["Who is allowed to work remotely, and how many days a week?", "What are the eligibility "
                                                                               "rules "
                 "for remote work?"],
                ["Can I do my job from home part of the week, and what's the maximum?",
                 "I'm still in my trial period — may I stay home and work?"],
            ),
            "home-office": section(
                "Home office allowance",
                "Remote workers get a one-off home office allowance of €500 for a desk, chair or lighting, "
                "and €30 per month towards internet costs. Claim both in the expense tool with receipts. The "
                "standard company monitor and keyboard can also be ordered for home through the service "
                "portal.",
                "A one-off €500 for furniture or lighting and €30 a month for internet, claimed in the "
                "expense tool.",
                ["Is there an allowance for setting up a home office?", "Does the company pay for internet "
                 "when working from home?"],
                ["Will the company chip in for a decent chair and desk at my place?",
                 "Do I get anything towards my broadband bill if I work from my flat?"],
            ),
            "abroad": section(
                "Working from abroad",
                "Working from another country is allowed for up to 20 working days per calendar year, within "
                "the EU and the UK only. It needs approval from your manager and HR at least 4 weeks in "
                "advance because of tax and social security rules; longer stays need a separate assessment "
                "by HR and Legal.",
                "Up to 20 working days a year in the EU or UK, approved by your manager and HR 4 weeks "
                "ahead.",
                ["Can I work remotely from another country?", "How many days a year can I work from abroad?"],
                ["Could I spend a few weeks at my parents' place in Spain and log in from there?",
                 "Is a workation allowed, and who do I have to ask?"],
            ),
        },
    ),
    "performance-review": PageText(
        title="Performance reviews",
        sections={
            "cycle": section(
                "Review cycle",
                "Performance reviews take place twice a year: the mid-year check-in in July and the annual "
                "review in January. The annual review sets the rating used for salary increases and bonuses; "
                "calibration meetings are held in the first two weeks of February.",
                "Twice a year: a mid-year check-in in July and the annual review in January, with "
                "calibration in early February.",
                ["When do performance reviews take place?", "How often are performance reviews held?"],
                ["What time of year do I get my appraisal?", "How many times a year does my boss formally "
                 "assess me?"],
            ),
            "self-assessment": section(
                "Self-assessment",
                "Before each review you write a self-assessment in the performance tool: what you achieved "
                "against your goals, what you learned and what support you need. Submit it by the 15th of "
                "the review month; your manager also collects feedback from two or three peers you nominate.",
                "In the performance tool by the 15th of the review month, covering goals, learning and "
                "needed support, plus peer feedback you nominate.",
                ["What goes into the self-assessment and when is it due?", "When do I have to submit my "
                 "self-assessment?"],
                ["What do I need to write about myself before my appraisal, and by when?",
                 "Is there a deadline for my own write-up ahead of the review?"],
            ),
            "ratings": section(
                "Ratings",
                "Ratings use a five-point scale: 1 Below expectations, 2 Partly meets, 3 Meets, 4 Exceeds, 5 "
                "Outstanding. A rating of 1 or 2 leads to a development plan; ratings of 4 and 5 are "
                "considered for promotion. You can challenge a rating with HR within 30 days.",
                "A 1–5 scale; 1–2 trigger a development plan, 4–5 are considered for promotion, and ratings "
                "can be challenged within 30 days.",
                ["What rating scale is used in performance reviews?", "Can I appeal my performance rating?"],
                ["What do the scores from 1 to 5 mean, and what happens if I get a low one?",
                 "I think my score is unfair — can I push back on it?"],
            ),
        },
    ),
    "offboarding": PageText(
        title="Leaving the company",
        sections={
            "notice": section(
                "Notice period",
                "During probation the notice period is two weeks for both sides. After probation it is one "
                "month for employees with less than two years of service and three months after that, always "
                "to the end of a calendar month. Resign in writing, in Workday or with a signed letter to "
                "HR.",
                "Two weeks in probation, then one month (under two years of service) or three months, to the "
                "end of a month, given in writing.",
                ["What is the notice period when I resign?", "How do I hand in my resignation?"],
                ["If I quit, how long do I have to keep working here?", "I've found another job — how do I "
                 "tell the company officially?"],
            ),
            "equipment-return": section(
                "Returning equipment",
                "Return your laptop, badge, phone and any other company equipment on your last working day, "
                "either at reception or to IT; remote employees receive a prepaid return box. Equipment not "
                "returned within 10 days is deducted from the final pay at its current value.",
                "On the last working day at reception or to IT (remote staff get a prepaid box); unreturned "
                "items are deducted after 10 days.",
                ["How do I return company equipment when I leave?", "What happens if I don't return my "
                                                                    "laptop "
                 "when leaving?"],
                ["On my way out, where do I drop off my work laptop and pass?",
                 "I work from home and I'm leaving — how do I send my kit back?"],
            ),
            "final-pay": section(
                "Final pay",
                "The final salary is paid on the usual payday of the month after your last day, together "
                "with payment for unused annual leave and any overtime. The final payslip and the employment "
                "certificate are sent to your private email within 4 weeks.",
                "On the regular payday after your last day, including unused leave and overtime; the payslip "
                "and certificate follow within 4 weeks.",
                ["When do I receive my final salary after leaving?", "Are unused holidays paid out when I "
                 "leave?"],
                ["When does my last paycheque land after I've left, and do leftover days off get paid?",
                 "How do I get my reference letter once I'm gone?"],
            ),
        },
    ),
    "service-desk": PageText(
        title="IT service desk",
        sections={
            "channels": section(
                "How to reach us",
                "The IT service desk is reachable through the service portal (fastest), the #it-help Slack "
                "channel, email to servicedesk@example.com or phone extension 4357. It is staffed on "
                "weekdays from 08:00 to 18:00.",
                "Service portal, #it-help, servicedesk@example.com or extension 4357, weekdays 08:00–18:00.",
                ["How do I contact the IT service desk?", "What are the IT service desk's hours?"],
                ["My laptop is acting up — how do I reach the IT people?", "Who do I call for computer "
                 "problems, and when are they around?"],
            ),
            "priorities": section(
                "Priorities",
                "Tickets get one of four priorities: P1 when many people cannot work (response within 30 "
                "minutes), P2 when one person cannot work (4 hours), P3 when something works badly but there "
                "is a workaround (1 working day), and P4 for requests and questions (3 working days).",
                "P1 30 minutes, P2 4 hours, P3 1 working day, P4 3 working days.",
                ["How are IT tickets prioritised?", "What is the response time for a P2 ticket?"],
                ["How fast will IT get back to me if I can't work at all?",
                 "What decides how urgently my IT request gets handled?"],
            ),
            "after-hours": section(
                "Outside desk hours",
                "Outside desk hours only P1 incidents are handled: call the on-call number +49 30 1234 5678 "
                "and describe the impact. Everything else is picked up on the next working day; create the "
                "ticket in the portal so that it is already queued.",
                "Only P1s, via +49 30 1234 5678; everything else waits for the next working day.",
                ["Is there IT support outside office hours?", "Who do I call for an IT outage at night?"],
                ["Everything's down and it's Sunday evening — can anyone from IT help?",
                 "Is there an emergency number for tech trouble after work?"],
            ),
        },
    ),
    "passwords": PageText(
        title="Passwords and sign-in",
        sections={
            "rules": section(
                "Password rules",
                "Passwords for company accounts must have at least 14 characters; a passphrase of four or "
                "more words is recommended. Never reuse a password from another account. Passwords are "
                "changed only when there is a sign of compromise, not on a schedule, and the system rejects "
                "passwords found in known breaches.",
                "At least 14 characters, never reused; changed only after a suspected compromise.",
                ["What are the password requirements?", "How often do I have to change my password?"],
                ["How long and complicated does my login secret need to be?",
                 "Do I need to come up with a new login phrase every few months?"],
            ),
            "mfa": section(
                "Multi-factor authentication",
                "Multi-factor authentication is mandatory for all company accounts. Use the Okta Verify app "
                "with push notifications; administrators use a hardware security key. SMS codes are not "
                "allowed. If you lose your phone, the service desk resets your MFA after checking your "
                "identity on a video call.",
                "Mandatory, with Okta Verify push (hardware keys for admins); no SMS; the service desk "
                "resets it after a video identity check.",
                ["Is MFA required, and which methods are allowed?", "How do I reset MFA after losing my "
                 "phone?"],
                ["I got a new phone and can't approve sign-ins any more — what do I do?",
                 "Can I get my login codes by text message?"],
            ),
            "password-manager": section(
                "Password manager",
                "Everyone gets a 1Password business account for work credentials. Shared team credentials go "
                "into shared vaults, never into documents or chat. Your 1Password master password follows "
                "the same rules as other passwords and must not be written down anywhere else.",
                "1Password business, with shared vaults for team credentials; the master password follows "
                "the normal rules.",
                ["Which password manager should I use?", "Where should shared team passwords be stored?"],
                ["Where do we keep the logins the whole team uses?", "Is there an approved app for "
                                                                     "remembering "
                 "all my work logins?"],
            ),
        },
    ),
    "incident-reporting": PageText(
        title="Reporting security incidents",
        sections={
            "phishing": section(
                "Phishing",
                "If you receive a suspicious email, do not click links or open attachments. Report it with "
                "the Report phishing button in your mail client, which sends it to the security team and "
                "removes it from your inbox. If you already clicked or entered your password, change the "
                "password and tell the security team at once.",
                "Don't click; use the Report phishing button; if you clicked or typed your password, change "
                "it and tell security immediately.",
                ["How do I report a phishing email?", "What should I do if I clicked a link in a phishing "
                 "email?"],
                ["I got a dodgy-looking message asking for my login — what should I do with it?",
                 "Oops, I think I typed my password into a fake site. Now what?"],
            ),
            "lost-device": section(
                "Lost or stolen devices",
                "Report a lost or stolen laptop or phone within one hour of noticing, through the security "
                "hotline. The device is locked and wiped remotely. In case of theft, file a police report "
                "and upload it to the ticket the security team opens for you.",
                "Call the security hotline within an hour; the device is wiped remotely, and a police report "
                "is needed for theft.",
                ["What do I do if my work laptop is stolen?", "How quickly must a lost phone be reported?"],
                ["I left my work phone on the train — who do I tell and how fast?",
                 "Someone nicked my company notebook — what are the next steps?"],
            ),
            "contacts": section(
                "Contacts",
                "Security incidents are reported to security@example.com or in the #security-incidents Slack "
                "channel; the 24/7 security hotline is +49 30 1234 5600. For incidents involving personal "
                "data, the security team also informs the data protection officer.",
                "security@example.com, #security-incidents, or the 24/7 hotline +49 30 1234 5600.",
                ["How do I contact the security team?", "What is the security hotline number?"],
                ["Who do I call at 3 a.m. if I think we've been hacked?", "What's the best way to reach the "
                 "infosec people?"],
            ),
        },
    ),
    "expense-reports": PageText(
        title="Expense reports",
        sections={
            "deadline": section(
                "Deadline",
                "Submit expense reports in the expense tool within 30 days of the expense or the end of the "
                "trip. Reports submitted more than 90 days late are rejected unless your head of department "
                "approves an exception.",
                "Within 30 days; after 90 days only with an exception from your head of department.",
                ["What is the deadline for submitting expense reports?", "Can I submit an expense report "
                 "after 90 days?"],
                ["How long after a trip can I still claim my costs back?", "I forgot to file my costs from "
                 "spring — is it too late?"],
            ),
            "receipts": section(
                "Receipts",
                "Every expense over €10 needs an itemised receipt; photograph it in the expense app right "
                "away. Card slips alone are not enough. For a lost receipt, fill in the missing receipt "
                "declaration, which may be used at most three times a year.",
                "An itemised receipt for anything over €10; a missing receipt declaration at most three "
                "times a year.",
                ["Which expenses need a receipt?", "What if I lose a receipt?"],
                ["Is the card machine slip enough proof for a taxi?", "I can't find the bill from a client "
                 "dinner — can I still get the money back?"],
            ),
            "reimbursement": section(
                "Reimbursement",
                "Expenses approved by the 20th of the month are reimbursed with that month's payroll run; "
                "later approvals are paid a month later. The money goes to the bank account used for your "
                "salary, and the expense tool shows the status of every report.",
                "With the payroll of the month if approved by the 20th, otherwise a month later, to your "
                "salary account.",
                ["When are approved expenses reimbursed?", "Where is my expense reimbursement paid?"],
                ["When do I actually see the money I spent on the trip?", "How do I find out whether my "
                 "claim has been paid yet?"],
            ),
        },
    ),
    "first-day": PageText(
        title="Your first day",
        sections={
            "arrival": section(
                "Arrival",
                "On your first day, come to reception at 09:30, not earlier, so the team can get your "
                "welcome pack ready. Your manager or buddy picks you up there. If you are remote from day "
                "one, your laptop arrives by courier two days before and the welcome call starts at 10:00.",
                "At reception at 09:30, where your manager or buddy meets you; remote joiners get their "
                "laptop two days early and join a 10:00 call.",
                ["What time should I arrive on my first day?", "Where do I go on my first day?"],
                ["When should I turn up on day one, and who will meet me?",
                 "I'm starting remotely — how does my first morning work?"],
            ),
            "bring": section(
                "What to bring",
                "Bring an ID card or passport, your tax and social security numbers, your bank details for "
                "the salary, and the signed contract if you have not uploaded it yet. Everything else, "
                "including laptop, badge and accounts, is prepared for you.",
                "ID or passport, tax and social security numbers, bank details, and the signed contract if "
                "not uploaded.",
                ["What documents do I need to bring on my first day?", "What should I bring when I start?"],
                ["Which papers should I pack for my first morning?", "Do I need my passport or bank info "
                                                                     "when "
                 "I start?"],
            ),
            "schedule": section(
                "Schedule",
                "A typical first day: arrival and badge photo at 09:30, laptop setup with IT at 10:00, a "
                "welcome talk by the People team at 11:30, lunch with your team at 12:30, then a meeting "
                "with your manager to go through your 30-day plan and a Q&A session at 16:00.",
                "09:30 arrival and badge photo, 10:00 IT setup, 11:30 welcome talk, 12:30 team lunch, then "
                "the 30-day plan with your manager and a 16:00 Q&A.",
                ["What is the schedule for the first day?", "When is the laptop setup on the first day?"],
                ["How is my first day planned out, hour by hour?", "Will I get lunch with my new colleagues "
                 "on day one, and what else happens?"],
            ),
        },
    ),
    "desk-booking": PageText(
        title="Desk booking",
        sections={
            "rules": section(
                "Booking rules",
                "Desks in all offices are shared and booked in the Deskbird app up to 14 days ahead, one "
                "desk per person per day. Team zones are reserved for their team on its office days until "
                "10:00 and then released to everyone. Leave the desk clear at the end of the day.",
                "In the Deskbird app up to 14 days ahead, one desk a day; team zones are held until 10:00.",
                ["How do I book a desk in the office?", "How far in advance can I book a desk?"],
                ["How do I reserve a spot to sit when I come in?", "Can I grab a workstation for next month "
                 "already?"],
            ),
            "cancellation": section(
                "Cancellations and no-shows",
                "Cancel a desk booking in the app by 09:00 on the day at the latest. Bookings not checked in "
                "by 11:00 are released automatically, and three no-shows in a month block desk booking for a "
                "week.",
                "Cancel by 09:00; unchecked bookings are released at 11:00 and three no-shows a month block "
                "booking for a week.",
                ["How do I cancel a desk booking?", "What happens if I don't show up for my desk booking?"],
                ["I booked a seat but I'm staying home — what should I do?", "Is there a penalty for "
                 "reserving a workstation and never coming?"],
            ),
        },
    ),
    "pay-schedule": PageText(
        title="Pay schedule",
        sections={
            "payday": section(
                "Payday",
                "Salaries are paid monthly on the 25th; if the 25th falls on a weekend or public holiday, "
                "payment is made on the last working day before it. Changes such as a new bank account must "
                "reach Payroll by the 10th to apply to the same month.",
                "On the 25th, or the last working day before it; changes must reach Payroll by the 10th.",
                ["When is salary paid?", "What is the deadline for changing my bank account for this month's "
                 "salary?"],
                ["What day of the month does my pay hit my account?", "I opened a new bank account — until "
                 "when can I switch it for this month's wages?"],
            ),
            "payslips": section(
                "Payslips",
                "Payslips are available in Workday under Pay → Payslips from the 23rd of each month; paper "
                "payslips are no longer sent. The annual tax statement is uploaded by the end of February.",
                "In Workday under Pay → Payslips from the 23rd; the annual tax statement by the end of "
                "February.",
                ["Where can I find my payslip?", "When is the annual tax statement available?"],
                ["Where do I download the breakdown of my monthly earnings?",
                 "I need my yearly tax document for my return — when can I get it?"],
            ),
            "corrections": section(
                "Corrections",
                "If your pay is wrong, raise a Payroll ticket in the HR portal with the payslip and a short "
                "explanation. Errors reported by the 10th are corrected in the same month's salary, later "
                "ones with the next regular payment. Underpayments of more than €500 can be paid separately "
                "within 5 working days.",
                "Raise a Payroll ticket; reported by the 10th it is fixed that month, and underpayments over "
                "€500 can be paid within 5 working days.",
                ["What do I do if my salary is wrong?", "How quickly are payroll errors corrected?"],
                ["My wages came in short — how do I get the rest?", "Who do I talk to if my payslip has a "
                 "mistake?"],
            ),
        },
    ),
    "new-supplier": PageText(
        title="Adding a new supplier",
        sections={
            "checks": section(
                "Supplier checks",
                "Before a new supplier can be used, Procurement checks its company registration, sanctions "
                "lists and bank details. Suppliers that will handle our data also complete a security "
                "questionnaire and sign a data processing agreement. The checks take about 10 working days.",
                "Registration, sanctions and bank checks, plus a security questionnaire and DPA for data "
                "processors; about 10 working days.",
                ["What checks are done before a new supplier is approved?", "How long does supplier "
                 "onboarding take?"],
                ["What does Procurement look into before we can work with a new company?",
                 "How long before a brand-new vendor is cleared to work with us?"],
            ),
            "registration": section(
                "Registration",
                "To add a supplier, submit the New supplier form in the procurement portal with the "
                "supplier's legal name, VAT number and contact person; the supplier then completes its own "
                "details in the supplier portal. Only after the checks are passed does it get a vendor "
                "number, and orders can be placed.",
                "Submit the New supplier form (legal name, VAT number, contact); the supplier fills in its "
                "details, and orders are possible once it has a vendor number.",
                ["How do I register a new supplier?", "When can I place an order with a new supplier?"],
                ["We want to use a company we've never bought from — how do I get them set up?",
                 "What info do I need from a new vendor to get them into our system?"],
            ),
        },
    ),
    "incident-severity": PageText(
        title="Incident severity levels",
        sections={
            "sev1": section(
                "SEV1",
                "SEV1 is a critical customer-facing outage or data loss, for example checkout or login down "
                "for all users, or a confirmed security breach. An incident commander is paged immediately, "
                "the status page is updated within 15 minutes and every 30 minutes after that, and a "
                "postmortem is mandatory.",
                "A critical outage or data loss; page the incident commander, update the status page within "
                "15 minutes and then every 30, and write a postmortem.",
                ["What is a SEV1 incident?", "How often are status updates sent during a SEV1?"],
                ["What counts as the worst kind of outage, and what do we do when it happens?",
                 "Login is broken for every customer — how bad is that and who gets called?"],
            ),
            "sev2": section(
                "SEV2",
                "SEV2 is a major feature that is broken or badly degraded for many customers without a "
                "workaround. The on-call engineer leads the response, posts updates every hour in #incidents "
                "and involves the team lead; a postmortem is required.",
                "A major feature broken for many customers without a workaround; hourly updates in "
                "#incidents and a postmortem.",
                ["What is a SEV2 incident?", "Does a SEV2 need a postmortem?"],
                ["A big feature is broken for lots of users but the site is up — what level is that?",
                 "How often do we post news in the incident channel for a serious but not critical outage?"],
            ),
            "sev3": section(
                "SEV3",
                "SEV3 is a minor feature that is broken, or a problem affecting a few customers, where a "
                "workaround exists. The owning team handles it during working hours through a Jira ticket; "
                "no status page update is needed.",
                "A minor problem with a workaround, handled in working hours via Jira without a status page "
                "update.",
                ["What is a SEV3 incident?", "Is a status page update needed for a SEV3?"],
                ["A small thing is broken for a handful of users and there's a workaround — how do we treat "
                 "that?", "Do we have to wake someone up for a minor glitch?"],
            ),
            "sev4": section(
                "SEV4",
                "SEV4 covers cosmetic issues and internal-only problems with no customer impact. They are "
                "logged in the team backlog and prioritised like normal work.",
                "Cosmetic or internal-only issues, logged in the backlog as normal work.",
                ["What is a SEV4 incident?", "How are SEV4 issues handled?"],
                ["A button is the wrong colour on an internal tool — is that even an incident?",
                 "What's the lowest severity for bugs customers never see?"],
            ),
        },
    ),
    "postmortems": PageText(
        title="Postmortems",
        sections={
            "when": section(
                "When a postmortem is required",
                "A postmortem is required for every SEV1 and SEV2 incident, any data loss, and any incident "
                "in which the on-call escalation failed. The incident commander assigns an owner within one "
                "working day of resolution.",
                "For every SEV1 and SEV2, any data loss and any failed escalation; the incident commander "
                "assigns an owner within a working day.",
                ["When is a postmortem required?", "Who assigns the postmortem owner?"],
                ["Which outages need a formal write-up afterwards?", "Do we have to do a retro if the pager "
                 "didn't reach anybody?"],
            ),
            "document": section(
                "Writing the document",
                "Write the postmortem from the Confluence template Postmortem within 5 working days: "
                "summary, customer impact, timeline, root cause, what went well, and action items with "
                "owners and due dates. Postmortems are blameless: describe systems and decisions, not "
                "individual mistakes.",
                "From the Confluence Postmortem template within 5 working days, blameless, with impact, "
                "timeline, root cause and owned action items.",
                ["What should a postmortem contain?", "How long do I have to write a postmortem?"],
                ["How do I write up what went wrong after an outage, and by when?",
                 "Can I name the person who broke production in the incident write-up?"],
            ),
            "review": section(
                "Review",
                "Postmortems are discussed at the weekly reliability review on Thursdays at 15:00. Action "
                "items are tracked in Jira with the label postmortem, and the SRE team reports overdue items "
                "to engineering leadership every month.",
                "At the Thursday 15:00 reliability review; actions tracked in Jira with the postmortem "
                "label, overdue ones reported monthly.",
                ["When are postmortems reviewed?", "How are postmortem action items tracked?"],
                ["Where do we go through incident write-ups as a group?",
                 "Who keeps an eye on the follow-up tasks after an outage?"],
            ),
        },
    ),
    "personal-data": PageText(
        title="Personal data",
        sections={
            "principles": section(
                "Principles",
                "Collect personal data only for a defined purpose, keep only what you need and delete it "
                "when the purpose ends. Personal data is at least Confidential under the data classification "
                "policy; health data and ID documents are Restricted. The data protection officer records "
                "every new processing activity in the processing register.",
                "Collect only for a defined purpose, minimise and delete when done; personal data is at "
                "least Confidential, health data and IDs are Restricted.",
                ["What are the rules for handling personal data?", "What classification does personal data "
                 "have?"],
                ["How careful do I need to be with customers' names and addresses?",
                 "Can I keep a spreadsheet of people's details just in case?"],
            ),
            "requests": section(
                "Data subject requests",
                "If a customer or employee asks to see, correct or delete their personal data, forward the "
                "request to privacy@example.com on the same day without replying yourself. The privacy team "
                "must answer within one month, so every delay matters.",
                "Forward it the same day to privacy@example.com without replying; the privacy team answers "
                "within a month.",
                ["What do I do if a customer asks for their data to be deleted?", "Where do I send a data "
                 "access request?"],
                ["A customer wants to know everything we store about them — how do I respond?",
                 "Somebody emailed asking us to erase their info; should I just do it?"],
            ),
            "breaches": section(
                "Data breaches",
                "A personal data breach, such as data sent to the wrong person, a lost unencrypted device or "
                "unauthorised access, must be reported to the security team immediately. The company has to "
                "notify the supervisory authority within 72 hours of becoming aware of a breach that puts "
                "people at risk, so do not investigate on your own first.",
                "Report it to the security team immediately; the authority must be notified within 72 hours.",
                ["How do I report a personal data breach?", "How quickly must a data breach be reported to "
                                                            "the "
                 "authority?"],
                ["I emailed a customer list to the wrong address — what now?",
                 "What's the clock for telling the regulator after a data leak?"],
            ),
        },
    ),
}

UNANSWERABLE = (
    "Is there a gym or a shower room in the Berlin office?",
    "What is the dress code for meetings with clients?",
    "Does the company match contributions to a private pension plan?",
    "Can I get a company mobile phone with an unlimited data plan?",
    "Are dogs allowed in the office?",
    "How much is the referral bonus when a friend I recommended is hired?",
    "Which programming languages are approved for new backend services?",
    "Can we pay a supplier in cryptocurrency?",
    "Does the company pay relocation costs for new hires moving from abroad?",
    "Where can I leave my bicycle at the Munich office?",
)

BANK = Bank(
    language="en",
    name="synthetic",
    description=(
        "Synthetic English corporate wiki: HR, IT, security, travel, onboarding, facilities, payroll, "
        "procurement, engineering and legal pages. Templated page families make sibling pages "
        "near-duplicates that differ in their facts; questions have graded relevance where a sibling section "
        "is also needed, paraphrases in a colloquial register, and unanswerable questions."
    ),
    no_answer="The wiki does not cover this.",
    plural=plural,
    formats=FORMATS,
    vocabularies=VOCABULARIES,
    families={
        "leave": LEAVE,
        "vpn": VPN,
        "access": ACCESS,
        "equipment": EQUIPMENT,
        "classification": CLASSIFICATION,
        "trip": TRIP,
        "department": DEPARTMENT,
        "office": OFFICE,
        "grade": GRADE,
        "procurement": PROCUREMENT,
        "team": TEAM,
        "contract": CONTRACT,
    },
    pages=PAGES,
    extra_entity=extra_entity,
    unanswerable=UNANSWERABLE,
    unsupported_claims=(
        "The board of directors additionally reviews every such case.",
        "Employees who joined after 2022 must first clear this with the works council.",
        "This rule is suspended during the December holiday freeze.",
        "A paper copy of the confirmation must also be posted to the head office.",
        "Anyone who breaks this rule loses their annual bonus.",
        "The same terms are guaranteed to family members as well.",
        "Requests sent on a Friday are handled only after two weeks.",
        "This rule will be abolished at the end of next quarter.",
    ),
)
