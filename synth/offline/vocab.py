"""Word lists for realistic offline values: real places, tickers, queries, people's phrasing.

Faker covers people, companies, addresses, emails and phone numbers well; its cities are
invented ("Lake Jamesfort") and its sentences are lorem-like, so those come from here.
"""

CITIES = (
    ("Porto", "Portugal"), ("Lisbon", "Portugal"), ("Madrid", "Spain"), ("Barcelona", "Spain"),
    ("Paris", "France"), ("Lyon", "France"), ("Berlin", "Germany"), ("Munich", "Germany"),
    ("Amsterdam", "Netherlands"), ("Copenhagen", "Denmark"), ("Stockholm", "Sweden"),
    ("Oslo", "Norway"), ("Helsinki", "Finland"), ("Dublin", "Ireland"), ("London", "United Kingdom"),
    ("Edinburgh", "United Kingdom"), ("Rome", "Italy"), ("Milan", "Italy"), ("Vienna", "Austria"),
    ("Prague", "Czech Republic"), ("Warsaw", "Poland"), ("Athens", "Greece"), ("Istanbul", "Turkey"),
    ("Cairo", "Egypt"), ("Nairobi", "Kenya"), ("Cape Town", "South Africa"), ("Lagos", "Nigeria"),
    ("Dubai", "United Arab Emirates"), ("Mumbai", "India"), ("Bangalore", "India"),
    ("Singapore", "Singapore"), ("Bangkok", "Thailand"), ("Tokyo", "Japan"), ("Osaka", "Japan"),
    ("Seoul", "South Korea"), ("Shanghai", "China"), ("Hong Kong", "China"), ("Sydney", "Australia"),
    ("Melbourne", "Australia"), ("Auckland", "New Zealand"), ("Toronto", "Canada"),
    ("Vancouver", "Canada"), ("Montreal", "Canada"), ("New York", "United States"),
    ("San Francisco", "United States"), ("Seattle", "United States"), ("Chicago", "United States"),
    ("Austin", "United States"), ("Boston", "United States"), ("Denver", "United States"),
    ("Mexico City", "Mexico"), ("Bogota", "Colombia"), ("Lima", "Peru"), ("Santiago", "Chile"),
    ("Buenos Aires", "Argentina"), ("Sao Paulo", "Brazil"), ("Rio de Janeiro", "Brazil"),
)
CITY_COORDS = {
    "Porto": (41.15, -8.61), "Lisbon": (38.72, -9.14), "Madrid": (40.42, -3.7),
    "Paris": (48.86, 2.35), "Berlin": (52.52, 13.4), "London": (51.51, -0.13),
    "Tokyo": (35.68, 139.69), "New York": (40.71, -74.01), "Sydney": (-33.87, 151.21),
    "San Francisco": (37.77, -122.42), "Toronto": (43.65, -79.38), "Singapore": (1.35, 103.82),
}
AIRPORTS = ("LIS", "OPO", "MAD", "CDG", "LHR", "FRA", "AMS", "JFK", "SFO", "NRT", "SIN", "DXB", "YYZ")
TIMEZONES = ("Europe/Lisbon", "Europe/Berlin", "America/New_York", "America/Los_Angeles",
             "Asia/Tokyo", "Asia/Singapore", "Australia/Sydney", "UTC")
LANGUAGES = (("en", "English"), ("es", "Spanish"), ("fr", "French"), ("de", "German"),
             ("pt", "Portuguese"), ("ja", "Japanese"), ("it", "Italian"), ("zh", "Chinese"))
CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "BRL", "INR")
TICKERS = ("AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "GOOGL", "META", "NFLX", "JPM", "KO", "V", "SHOP")
CRYPTO = (("bitcoin", "BTC"), ("ethereum", "ETH"), ("solana", "SOL"), ("cardano", "ADA"),
          ("dogecoin", "DOGE"), ("polkadot", "DOT"), ("chainlink", "LINK"))
ENTITIES = ("Article", "Product", "Customer", "Invoice", "Author", "Event", "Review")
PROTOCOLS = ("aave", "uniswap", "lido", "curve-dex", "makerdao", "compound", "pendle")
CHAINS = ("ethereum", "arbitrum", "base", "solana", "polygon", "optimism")
GITHUB_OWNERS = ("octocat", "vercel", "microsoft", "psf", "pallets", "tiangolo", "rust-lang", "denoland")
GITHUB_REPOS = ("hello-world", "next.js", "vscode", "requests", "flask", "fastapi", "rustlings", "deno")
BRANCHES = ("main", "develop", "feature/login-page", "fix/null-pointer", "release/2.4")
FILE_PATHS = ("reports/q3-summary.md", "src/app/main.py", "docs/getting-started.md", "data/sales_2025.csv",
              "notes/meeting-2026-03-12.txt", "config/settings.yaml", "images/logo.png",
              "invoices/INV-2026-0142.pdf")
DIRECTORIES = ("reports", "src/app", "docs", "data/exports", "notes", "projects/website")
URLS = ("https://www.bbc.com/news/technology", "https://en.wikipedia.org/wiki/Porto",
        "https://docs.python.org/3/library/asyncio.html", "https://github.com/pallets/flask",
        "https://www.nytimes.com/section/science", "https://example-shop.com/products/trail-runner-2",
        "https://arxiv.org/abs/2310.06770", "https://news.ycombinator.com/")
DOMAINS = ("github.com", "python.org", "wikipedia.org", "bbc.co.uk", "stripe.com", "openstreetmap.org")
PRODUCTS = ("wireless noise-cancelling headphones", "trail running shoes", "espresso machine",
            "4K monitor", "standing desk", "mechanical keyboard", "hiking backpack", "air purifier")
CATEGORIES = ("electronics", "books", "sports", "home", "travel", "health", "finance", "technology")
TABLES = ("customers", "orders", "products", "invoices", "employees", "events")
SQL = ("SELECT name, email FROM customers WHERE country = 'Portugal' LIMIT 10",
       "SELECT status, COUNT(*) FROM orders GROUP BY status",
       "SELECT * FROM products WHERE price < 50 ORDER BY price",
       "SELECT id, total FROM invoices WHERE paid = false")
COLORS = ("red", "blue", "green", "black", "white", "orange")
TAGS = ("urgent", "follow-up", "q3-planning", "customer", "research", "personal")
STATUSES = ("open", "closed", "pending", "active", "completed")

# Search phrases by topic word found in the server's category, name or tool description.
QUERIES = {
    "weather": ("storm warnings this weekend", "heatwave forecast", "rain tomorrow"),
    "news": ("EU AI Act enforcement", "central bank interest rate decision", "Mars sample return mission",
             "electric vehicle sales 2026"),
    "finance": ("Tesla quarterly earnings", "S&P 500 dividend stocks", "inflation outlook 2026",
                "Nvidia revenue guidance"),
    "crypto": ("Ethereum staking yields", "Bitcoin ETF inflows", "Solana network outage"),
    "code": ("async retry decorator", "rate limiter middleware", "parse ISO 8601 dates", "React useEffect cleanup"),
    "paper": ("retrieval augmented generation evaluation", "protein folding diffusion models",
              "graph neural networks for traffic forecasting"),
    "travel": ("boutique hotels in Lisbon", "direct flights from Boston to Dublin", "things to do in Kyoto in autumn"),
    "food": ("vegetarian lasagna recipe", "best ramen near Shibuya", "sourdough starter tips"),
    "health": ("symptoms of vitamin D deficiency", "ibuprofen and alcohol interaction", "marathon training plan"),
    "shop": ("wireless earbuds under $100", "ergonomic office chair", "kids' rain jacket"),
    "job": ("remote data engineer jobs", "product designer roles in Berlin"),
    "music": ("Radiohead live albums", "lofi study playlist"),
    "movie": ("Christopher Nolan films", "best documentaries of 2025"),
    "game": ("Elden Ring boss guide", "top indie games 2025"),
    "general": ("climate change adaptation policies", "history of the printing press",
                "how do heat pumps work", "renewable energy storage", "best practices for remote work",
                "Python type hints tutorial", "Mediterranean diet benefits"),
}
TOPIC_WORDS = {
    "weather": ("weather", "forecast", "climate"), "news": ("news", "headline", "article", "media"),
    "crypto": ("crypto", "coin", "token", "blockchain", "bitcoin", "defi", "wallet"),
    "finance": ("stock", "finance", "market", "ticker", "financial", "trading", "invest"),
    "code": ("code", "github", "repo", "developer", "git", "npm", "package", "library"),
    "paper": ("paper", "arxiv", "research", "academic", "scholar", "pubmed"),
    "travel": ("travel", "flight", "hotel", "trip", "airbnb", "booking"),
    "food": ("recipe", "food", "restaurant", "meal"), "health": ("health", "medical", "drug", "fitness"),
    "shop": ("product", "shop", "commerce", "store", "amazon", "price"), "job": ("job", "career", "hiring"),
    "music": ("music", "song", "spotify", "artist"), "movie": ("movie", "film", "tv", "anime"),
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
TITLES = ("Quarterly planning", "Team offsite agenda", "Bug: login fails on Safari", "Q3 sales summary",
          "Onboarding checklist", "Dentist appointment", "Release notes v2.4", "Weekly sync")
NOTES = ("Call the landlord about the heating.", "Buy oat milk and coffee beans.",
         "Prepare slides for Monday's review.", "Renew passport before the trip in June.",
         "Ask Maria about the design feedback.")
PERSONAS = {
    "weather": ("I'm planning a weekend hike", "I'm flying out on Friday", "I run an outdoor café"),
    "travel": ("I'm planning a trip with my family", "I travel a lot for work", "I'm organising a team retreat"),
    "finance": ("I'm reviewing my portfolio", "I'm preparing a market update for my team",
                "I'm thinking about rebalancing my investments"),
    "crypto": ("I'm tracking my crypto holdings", "I'm researching a new token before buying"),
    "code": ("I'm triaging issues for our open-source project", "I'm reviewing a pull request",
             "I'm setting up a new service"),
    "news": ("I'm writing a briefing for my team", "I want to catch up on the news"),
    "data": ("I'm putting together a sales report", "I'm cleaning up our customer data"),
    "general": ("I'm working on a project", "I need this for a report I'm writing",
                "I'm helping a colleague", "Quick one"),
}
OPENERS = ("Can you", "Could you", "Please", "I need you to", "Would you", "Help me")
