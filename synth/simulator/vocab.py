"""Word lists for realistic offline values: real places, tickers, queries, people's phrasing.

Faker covers people, companies, addresses, emails and phone numbers well; its cities are
invented ("Lake Jamesfort") and its sentences are lorem-like, so those come from here.
"""

# city | country | country code | latitude | longitude
_PLACES = """
    Porto          | Portugal             | PT |  41.15 | -8.61
    Lisbon         | Portugal             | PT |  38.72 | -9.14
    Madrid         | Spain                | ES |  40.42 | -3.7
    Barcelona      | Spain                | ES |  41.39 | 2.17
    Paris          | France               | FR |  48.86 | 2.35
    Lyon           | France               | FR |  45.76 | 4.84
    Berlin         | Germany              | DE |  52.52 | 13.4
    Munich         | Germany              | DE |  48.14 | 11.58
    Amsterdam      | Netherlands          | NL |  52.37 | 4.9
    Copenhagen     | Denmark              | DK |  55.68 | 12.57
    Stockholm      | Sweden               | SE |  59.33 | 18.07
    Oslo           | Norway               | NO |  59.91 | 10.75
    Helsinki       | Finland              | FI |  60.17 | 24.94
    Dublin         | Ireland              | IE |  53.35 | -6.26
    London         | United Kingdom       | GB |  51.51 | -0.13
    Edinburgh      | United Kingdom       | GB |  55.95 | -3.19
    Rome           | Italy                | IT |   41.9 | 12.5
    Milan          | Italy                | IT |  45.46 | 9.19
    Vienna         | Austria              | AT |  48.21 | 16.37
    Prague         | Czech Republic       | CZ |  50.08 | 14.44
    Warsaw         | Poland               | PL |  52.23 | 21.01
    Athens         | Greece               | GR |  37.98 | 23.73
    Istanbul       | Turkey               | TR |  41.01 | 28.98
    Cairo          | Egypt                | EG |  30.04 | 31.24
    Nairobi        | Kenya                | KE |  -1.29 | 36.82
    Cape Town      | South Africa         | ZA | -33.92 | 18.42
    Lagos          | Nigeria              | NG |   6.52 | 3.38
    Dubai          | United Arab Emirates | AE |   25.2 | 55.27
    Mumbai         | India                | IN |  19.08 | 72.88
    Bangalore      | India                | IN |  12.97 | 77.59
    Singapore      | Singapore            | SG |   1.35 | 103.82
    Bangkok        | Thailand             | TH |  13.76 | 100.5
    Tokyo          | Japan                | JP |  35.68 | 139.69
    Osaka          | Japan                | JP |  34.69 | 135.5
    Seoul          | South Korea          | KR |  37.57 | 126.98
    Shanghai       | China                | CN |  31.23 | 121.47
    Hong Kong      | China                | CN |  22.32 | 114.17
    Sydney         | Australia            | AU | -33.87 | 151.21
    Melbourne      | Australia            | AU | -37.81 | 144.96
    Auckland       | New Zealand          | NZ | -36.85 | 174.76
    Toronto        | Canada               | CA |  43.65 | -79.38
    Vancouver      | Canada               | CA |  49.28 | -123.12
    Montreal       | Canada               | CA |   45.5 | -73.57
    New York       | United States        | US |  40.71 | -74.01
    San Francisco  | United States        | US |  37.77 | -122.42
    Seattle        | United States        | US |  47.61 | -122.33
    Chicago        | United States        | US |  41.88 | -87.63
    Austin         | United States        | US |  30.27 | -97.74
    Boston         | United States        | US |  42.36 | -71.06
    Denver         | United States        | US |  39.74 | -104.99
    Mexico City    | Mexico               | MX |  19.43 | -99.13
    Bogota         | Colombia             | CO |   4.71 | -74.07
    Lima           | Peru                 | PE | -12.05 | -77.04
    Santiago       | Chile                | CL | -33.45 | -70.67
    Buenos Aires   | Argentina            | AR |  -34.6 | -58.38
    Sao Paulo      | Brazil               | BR | -23.55 | -46.63
    Rio de Janeiro | Brazil               | BR | -22.91 | -43.17
"""
_ROWS = [[cell.strip() for cell in line.split("|")] for line in _PLACES.strip().splitlines()]
CITIES = tuple((city, country) for city, country, *_ in _ROWS)
CITY_COORDS = {city: (float(lat), float(lon)) for city, _, _, lat, lon in _ROWS}
COUNTRY_CODES = {country: code for _, country, code, *_ in _ROWS}
AIRPORTS = ("LIS", "OPO", "MAD", "CDG", "LHR", "FRA", "AMS", "JFK", "SFO", "NRT", "SIN", "DXB", "YYZ")
TIMEZONES = tuple(
    """
    Europe/Lisbon Europe/Berlin America/New_York America/Los_Angeles Asia/Tokyo Asia/Singapore
    Australia/Sydney UTC
""".split()
)
LANGUAGES = (
    ("en", "English"),
    ("es", "Spanish"),
    ("fr", "French"),
    ("de", "German"),
    ("pt", "Portuguese"),
    ("ja", "Japanese"),
    ("it", "Italian"),
    ("zh", "Chinese"),
)
CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "BRL", "INR")
TICKERS = ("AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "GOOGL", "META", "NFLX", "JPM", "KO", "V", "SHOP")
CRYPTO = (
    ("bitcoin", "BTC"),
    ("ethereum", "ETH"),
    ("solana", "SOL"),
    ("cardano", "ADA"),
    ("dogecoin", "DOGE"),
    ("polkadot", "DOT"),
    ("chainlink", "LINK"),
)
ENTITIES = ("Article", "Product", "Customer", "Invoice", "Author", "Event", "Review")
PROTOCOLS = ("aave", "uniswap", "lido", "curve-dex", "makerdao", "compound", "pendle")
CHAINS = ("ethereum", "arbitrum", "base", "solana", "polygon", "optimism")
GITHUB_OWNERS = ("octocat", "vercel", "microsoft", "psf", "pallets", "tiangolo", "rust-lang", "denoland")
GITHUB_REPOS = ("hello-world", "next.js", "vscode", "requests", "flask", "fastapi", "rustlings", "deno")
BRANCHES = ("main", "develop", "feature/login-page", "fix/null-pointer", "release/2.4")
FILE_PATHS = tuple(
    """
    reports/q3-summary.md src/app/main.py docs/getting-started.md data/sales_2025.csv
    notes/meeting-2026-03-12.txt config/settings.yaml images/logo.png invoices/INV-2026-0142.pdf
""".split()
)
# IANA time zones a person asks about, with their UTC offset in June 2026 (summer time where there is one)
ZONE_OFFSETS = {
    "Europe/Lisbon": 1,
    "Europe/London": 1,
    "Europe/Berlin": 2,
    "Europe/Paris": 2,
    "America/New_York": -4,
    "America/Los_Angeles": -7,
    "Asia/Tokyo": 9,
    "Asia/Singapore": 8,
    "Australia/Sydney": 10,
    "UTC": 0,
    "America/Chicago": -5,
    "America/Sao_Paulo": -3,
    "America/Mexico_City": -6,
    "Europe/Madrid": 2,
    "Europe/Warsaw": 2,
    "Europe/Istanbul": 3,
    "Africa/Nairobi": 3,
    "Africa/Lagos": 1,
    "Asia/Dubai": 4,
    "Asia/Shanghai": 8,
    "Asia/Seoul": 9,
    "Pacific/Auckland": 12,
}
DIRECTORIES = ("reports", "src/app", "docs", "data/exports", "notes", "projects/website")
URLS = tuple(
    """
    https://www.bbc.com/news/technology https://en.wikipedia.org/wiki/Porto
    https://docs.python.org/3/library/asyncio.html https://github.com/pallets/flask
    https://www.nytimes.com/section/science https://example-shop.com/products/trail-runner-2
    https://arxiv.org/abs/2310.06770 https://news.ycombinator.com/
""".split()
)
DOMAINS = ("github.com", "python.org", "wikipedia.org", "bbc.co.uk", "stripe.com", "openstreetmap.org")
PRODUCTS = (
    "wireless noise-cancelling headphones",
    "trail running shoes",
    "espresso machine",
    "4K monitor",
    "standing desk",
    "mechanical keyboard",
    "hiking backpack",
    "air purifier",
)
CATEGORIES = ("electronics", "books", "sports", "home", "travel", "health", "finance", "technology")
TABLES = ("customers", "orders", "products", "invoices", "employees", "events")
SQL = (
    "SELECT name, email FROM customers WHERE country = 'Portugal' LIMIT 10",
    "SELECT status, COUNT(*) FROM orders GROUP BY status",
    "SELECT * FROM products WHERE price < 50 ORDER BY price",
    "SELECT id, total FROM invoices WHERE paid = false",
)
COLORS = ("red", "blue", "green", "black", "white", "orange")
TAGS = ("urgent", "follow-up", "q3-planning", "customer", "research", "personal")
STATUSES = ("open", "closed", "pending", "active", "completed")

# Search phrases by topic word found in the server's category, name or tool description.
QUERIES = {
    "weather": ("storm warnings this weekend", "heatwave forecast", "rain tomorrow"),
    "news": (
        "EU AI Act enforcement",
        "central bank interest rate decision",
        "Mars sample return mission",
        "electric vehicle sales 2026",
    ),
    "finance": (
        "Tesla quarterly earnings",
        "S&P 500 dividend stocks",
        "inflation outlook 2026",
        "Nvidia revenue guidance",
    ),
    "crypto": ("Ethereum staking yields", "Bitcoin ETF inflows", "Solana network outage"),
    "code": ("async retry decorator", "rate limiter middleware", "parse ISO 8601 dates", "React useEffect cleanup"),
    "paper": (
        "retrieval augmented generation evaluation",
        "protein folding diffusion models",
        "graph neural networks for traffic forecasting",
    ),
    "travel": ("boutique hotels in Lisbon", "direct flights from Boston to Dublin", "things to do in Kyoto in autumn"),
    "food": ("vegetarian lasagna recipe", "best ramen near Shibuya", "sourdough starter tips"),
    "health": ("symptoms of vitamin D deficiency", "ibuprofen and alcohol interaction", "marathon training plan"),
    "shop": ("wireless earbuds under $100", "ergonomic office chair", "kids' rain jacket"),
    "job": ("remote data engineer jobs", "product designer roles in Berlin"),
    "music": ("Radiohead live albums", "lofi study playlist"),
    "movie": ("Christopher Nolan films", "best documentaries of 2025"),
    "game": ("Elden Ring boss guide", "top indie games 2025"),
    "general": (
        "climate change adaptation policies",
        "history of the printing press",
        "how do heat pumps work",
        "renewable energy storage",
        "best practices for remote work",
        "Python type hints tutorial",
        "Mediterranean diet benefits",
    ),
}
TOPIC_WORDS = {
    "weather": ("weather", "forecast", "climate"),
    "news": ("news", "headline", "article", "media"),
    "crypto": ("crypto", "coin", "token", "blockchain", "bitcoin", "defi", "wallet"),
    "finance": ("stock", "finance", "market", "ticker", "financial", "trading", "invest"),
    "code": ("code", "github", "repo", "developer", "git", "npm", "package", "library"),
    "paper": ("paper", "arxiv", "research", "academic", "scholar", "pubmed"),
    "travel": ("travel", "flight", "hotel", "trip", "airbnb", "booking"),
    "food": ("recipe", "food", "restaurant", "meal"),
    "health": ("health", "medical", "drug", "fitness"),
    "shop": ("product", "shop", "commerce", "store", "amazon", "price"),
    "job": ("job", "career", "hiring"),
    "music": ("music", "song", "spotify", "artist"),
    "movie": ("movie", "film", "tv", "anime"),
    "game": ("game", "gaming", "steam"),
}

# Things a person might write or send; each stands alone as a realistic text value.
MESSAGES = (
    "Running about ten minutes late, start without me.",
    "Can we move our 1:1 to Thursday afternoon?",
    "The quarterly report is ready for review.",
    "Reminder: the team offsite is on Friday at 9am.",
    "Thanks for the quick turnaround on the invoice.",
    "Please review the draft before the client call.",
    "Deployment finished, all checks are green.",
)
TITLES = (
    "Quarterly planning",
    "Team offsite agenda",
    "Bug: login fails on Safari",
    "Q3 sales summary",
    "Onboarding checklist",
    "Dentist appointment",
    "Release notes v2.4",
    "Weekly sync",
)
NOTES = (
    "Call the landlord about the heating.",
    "Buy oat milk and coffee beans.",
    "Prepare slides for Monday's review.",
    "Renew passport before the trip in June.",
    "Ask Maria about the design feedback.",
)
PERSONAS = {
    "weather": ("I'm planning a weekend hike", "I'm flying out on Friday", "I run an outdoor café"),
    "travel": ("I'm planning a trip with my family", "I travel a lot for work", "I'm organising a team retreat"),
    "finance": (
        "I'm reviewing my portfolio",
        "I'm preparing a market update for my team",
        "I'm thinking about rebalancing my investments",
    ),
    "crypto": ("I'm tracking my crypto holdings", "I'm researching a new token before buying"),
    "code": (
        "I'm triaging issues for our open-source project",
        "I'm reviewing a pull request",
        "I'm setting up a new service",
    ),
    "news": ("I'm writing a briefing for my team", "I want to catch up on the news"),
    "data": ("I'm putting together a sales report", "I'm cleaning up our customer data"),
    "general": (
        "I'm working on a project",
        "I need this for a report I'm writing",
        "I'm helping a colleague",
        "Quick one",
    ),
}
OPENERS = ("Can you", "Could you", "Please", "I need you to", "Would you", "Help me")

# --- names of things people create or work in ------------------------------------------------
RESOURCE_STEMS = tuple("sales analytics billing inventory marketing crm payments support growth checkout".split())
RESOURCE_SUFFIX = dict(  # noun:suffix, as in "sales_db" or "billing-api"
    pair.split(":")
    for pair in """
    database:_db db:_db schema: namespace: project: workspace: dataset:_daily bucket:-exports index:-index
    store:-logs mart:_mart cluster:-cluster instance:-prod service:-api app:-app application:-app environment:
    env: module: package:-utils packages:-utils library:-ui block:-hero component:-card components:-card
    plugin:-plugin table: channel: repo: branch:
""".split()
)
NAMED_THINGS = {
    "playlist": ("Sunday morning jazz", "Road trip 2026", "Deep focus", "Running mix"),
    "project": ("Website redesign", "Q3 launch", "Mobile app v2", "Customer survey"),
    "task": ("Draft the release notes", "Book the venue", "Review the pull request", "Renew the SSL certificate"),
    "event": ("Team offsite", "Quarterly planning", "Dentist appointment", "Product demo"),
    "note": ("Meeting notes 12 March", "Ideas for the launch", "Packing list"),
    "list": ("Groceries", "Reading list", "Launch checklist"),
    "board": ("Product roadmap", "Sprint 14", "Marketing ideas"),
    "document": ("Onboarding guide", "Q3 sales summary", "API migration plan"),
    "collection": ("Articles", "Products", "Support tickets"),
    "memory": ("Favourite coffee order", "Sister's birthday", "Office wifi network"),
    "entity": ("Maria Santos", "Acme Corp", "Project Atlas"),
    "resource": ("Style guide", "Onboarding video", "API reference"),
    "workflow": ("Nightly data sync", "Invoice approval", "New hire onboarding"),
    "agent": ("Research assistant", "Support triage bot", "Code reviewer"),
    "template": ("Weekly report", "Invoice", "Meeting agenda"),
    "group": ("Design team", "Book club", "On-call engineers"),
    "room": ("Blue room", "Main hall", "Studio 3"),
    "style": ("streets", "satellite", "dark-gray"),
    "article": ("Porto", "Heat pump", "Printing press", "Marie Curie", "Great Barrier Reef"),
    "page": ("Porto", "Heat pump", "Printing press", "Onboarding guide"),
    "paper": ("Attention Is All You Need", "Highly accurate protein structure prediction with AlphaFold"),
    "video": ("How heat pumps work", "Lisbon travel guide", "Sourdough for beginners"),
    "stop": ("Central Station", "Market Street & 5th", "Airport Terminal 2", "City Hall"),
    "station": ("Central Station", "Union Square", "Harbourfront", "Airport Terminal 2"),
    "team": ("Lakers", "Arsenal", "Golden State Warriors", "Real Madrid"),
    "game": ("Catan", "Wingspan", "Terraforming Mars"),
    "book": ("Sapiens", "The Pragmatic Programmer", "Dune"),
    "artist": ("Radiohead", "Taylor Swift", "Miles Davis"),
    "song": ("Bohemian Rhapsody", "Blinding Lights", "So What"),
    "movie": ("Inception", "Dune: Part Two", "Spirited Away"),
}
DESCRIPTIONS = {
    "playlist": ("Upbeat songs for the morning run.", "Quiet piano for deep work."),
    "project": ("Redesign of the marketing site before the autumn launch.", "Internal tools for the support team."),
    "task": ("Collect feedback from the beta users and summarise it.", "Update the onboarding docs for the new API."),
    "event": ("Quarterly planning with the product and sales leads.", "Catch-up over coffee."),
    "resource": ("Reference material for new team members.", "The latest version of the brand guidelines."),
    "issue": ("Login fails on Safari 17 after the last release.", "The export button does nothing on large reports."),
}
GITHUB_PAIRS = tuple(
    """
    pallets/flask psf/requests tiangolo/fastapi vercel/next.js microsoft/vscode denoland/deno
    rust-lang/rustlings yamadashy/repomix
""".split()
)
CURSORS = ("eyJwYWdlIjoyfQ", "dXNlcjoxMjM0NQ", "c2VxOjIwMjYwNjAx")
REGIONS = ("us-en", "uk-en", "de-de", "fr-fr", "es-es", "jp-jp")
CLOUD_REGIONS = ("us-east-1", "eu-west-1", "ap-southeast-1", "eu-central-1")
EXCHANGES = ("binance", "coinbase", "kraken", "okx", "bybit")
PAIRS = ("BTC-USDT", "ETH-USDT", "SOL-USDT", "BTC/USD", "ETH/EUR")
SQL_WHERE = ("country = 'Portugal'", "created_at >= '2026-05-01'", "status = 'active' AND total > 100")
EXPRESSIONS = ("(15 + 27) * 3", "sqrt(144) + 2^5", "1250 * 0.075", "365 / 7")
JS_SNIPPETS = ("document.title", "[...document.querySelectorAll('a')].map(a => a.href).slice(0, 5)", "value * 1.2")
PY_SNIPPETS = (
    "print(sum(range(1, 101)))",
    "import statistics\nprint(statistics.mean([12, 15, 9, 20]))",
    "print(sorted(['pear', 'apple', 'fig']))",
)
COMMANDS = ("ls -la", "git status", "df -h", "npm test", "python --version", "docker ps", "tail -n 50 app.log")
SELECTORS = ("#login-button", "button[type='submit']", ".product-card h2", "input[name='email']", "nav a.active")
ELEMENTS = ("Sign in button", "Search field", "Accept cookies button", "Country dropdown", "Add to cart button")
INDUSTRIES = ("renewable energy", "fintech", "healthcare", "logistics", "e-commerce")
MODELS = ("gpt-4o-mini", "claude-3-5-sonnet", "llama-3.1-8b-instruct", "flux-schnell")
WORDS = ("serendipity", "ephemeral", "resilience", "wanderlust", "benevolent", "cadence")
SMILES = ("CC(=O)OC1=CC=CC=C1C(=O)O", "CN1C=NC2=C1C(=O)N(C(=O)N2C)C", "CC(C)CC1=CC=C(C=C1)C(C)C(=O)O")
BIP39_WORDS = tuple(
    """
    abandon ability able about above absent absorb abstract absurd abuse access accident account accuse
    achieve acid acoustic acquire across act action actor actress actual
""".split()
)  # the first words of the BIP-39 list
WORDS_BIP = BIP39_WORDS[:20]
DOIS = ("10.1038/s41586-021-03819-2", "10.1126/science.abj8754", "10.1056/NEJMoa2034577", "10.48550/arXiv.2310.06770")
ISBNS = ("9780143127741", "9780262046305", "9781492056355", "9780735219090")
PARAGRAPHS = (
    "Welcome to the team! This guide covers the tools we use, who to ask for help and what to do in your first week.",
    "Revenue grew 12% over the quarter, driven by the new subscription plans. Churn fell to 3.1%.",
    "Today we looked at how heat pumps move heat instead of making it, which is why they use less energy than boilers.",
    "The release adds dark mode, fixes the login bug on Safari and speeds up report exports by about 40%.",
)
# Statements for reasoning-style parameters (thought, problem, hypothesis, steps...), by topic.
REASONING = {
    "general": (
        "The checkout page is slow for users on mobile networks.",
        "Compare the cost of leasing and buying a car over five years.",
        "Most support tickets this week mention the new billing page.",
        "Break the migration into smaller steps that can be rolled back.",
        "Caching the product catalogue should cut the page load time in half.",
        "Decide whether to launch in Spain or Portugal first.",
    ),
    "code": (
        "The login endpoint returns 500 when the session cookie has expired.",
        "Memory grows steadily while the worker processes large uploads.",
        "Add retries with backoff around the payment client.",
        "Split the monolith's user module into its own service.",
    ),
    "data": (
        "Monthly revenue dropped in March although orders went up.",
        "Customers from the spring campaign churn faster than the rest.",
    ),
    "finance": (
        "Tech stocks look overvalued compared with their five-year average.",
        "Rebalance towards bonds if rates keep rising.",
    ),
    "health": (
        "Resting heart rate has risen by 8 bpm over two weeks.",
        "Increase weekly running distance by no more than 10%.",
    ),
}
CODE_NAMES = ("total_count", "user_id", "created_at", "is_active", "parse_invoice", "retry_count", "buffer_size")
MEDIA_PATHS = {
    "video": ("videos/product-demo.mp4", "videos/onboarding.mov"),
    "image": ("images/logo.png", "photos/team-offsite.jpg"),
    "photo": ("photos/team-offsite.jpg",),
    "audio": ("audio/interview-2026-05-12.mp3", "audio/podcast-ep12.wav"),
    "pdf": ("invoices/INV-2026-0142.pdf", "reports/annual-report-2025.pdf"),
    "csv": ("data/sales_2025.csv", "exports/customers.csv"),
    "excel": ("reports/budget-2026.xlsx",),
    "json": ("config/settings.json", "data/products.json"),
    "markdown": ("docs/getting-started.md", "README.md"),
    "python": ("src/app/main.py", "scripts/cleanup.py"),
    "log": ("logs/app.log",),
    "zip": ("backups/site-2026-05.zip",),
}
