"""The shop's 50 product types: option dimensions and a price range in dollars (after tau-bench retail)."""

from __future__ import annotations

COLORS = ["black", "white", "blue", "red", "green", "grey", "silver", "navy", "beige", "pink"]
SIZES = ["XS", "S", "M", "L", "XL", "XXL"]

# name -> ({option: [values]}, (min price, max price))
PRODUCTS: dict[str, tuple[dict[str, list[str]], tuple[int, int]]] = {
    "T-Shirt": (
        {"color": COLORS, "size": SIZES, "material": ["cotton", "polyester"], "style": ["crew neck", "v-neck"]},
        (20, 60),
    ),
    "Running Shoes": (
        {"size": ["7", "8", "9", "10", "11", "12"], "color": COLORS, "material": ["mesh", "leather", "synthetic"]},
        (80, 200),
    ),
    "Hiking Boots": (
        {"size": ["7", "8", "9", "10", "11", "12"], "material": ["leather", "synthetic"], "waterproof": ["yes", "no"]},
        (150, 260),
    ),
    "Sneakers": (
        {"size": ["7", "8", "9", "10", "11", "12"], "color": COLORS, "material": ["canvas", "leather"]},
        (50, 200),
    ),
    "Jacket": ({"size": SIZES, "color": COLORS, "zipper": ["full", "half"]}, (100, 300)),
    "Fleece Jacket": ({"size": SIZES, "color": COLORS, "zipper": ["full", "half"]}, (90, 200)),
    "Backpack": (
        {
            "color": COLORS,
            "size": ["small", "medium", "large"],
            "material": ["nylon", "polyester", "leather"],
            "compartment": ["laptop", "hydration", "camera"],
        },
        (180, 260),
    ),
    "Luggage Set": (
        {"piece count": ["2-piece", "3-piece", "4-piece"], "color": COLORS, "material": ["hardshell", "softshell"]},
        (300, 600),
    ),
    "Sunglasses": (
        {
            "frame color": COLORS,
            "lens color": ["brown", "green", "black", "blue"],
            "lens type": ["polarized", "non-polarized"],
            "frame material": ["plastic", "metal", "acetate"],
        },
        (130, 300),
    ),
    "Wristwatch": ({"strap material": ["leather", "metal", "silicone"], "dial color": COLORS}, (1500, 3000)),
    "Smart Watch": (
        {"color": COLORS, "band material": ["leather", "metal", "silicone"], "display": ["AMOLED", "LCD"]},
        (200, 400),
    ),
    "Headphones": (
        {"type": ["over-ear", "on-ear", "in-ear"], "connectivity": ["wired", "wireless"], "color": COLORS},
        (100, 400),
    ),
    "Wireless Earbuds": (
        {
            "color": COLORS,
            "battery life": ["4 hours", "6 hours", "8 hours"],
            "water resistance": ["IPX4", "IPX7", "not resistant"],
        },
        (60, 260),
    ),
    "Bluetooth Speaker": (
        {"color": COLORS, "battery life": ["10 hours", "20 hours"], "water resistance": ["yes", "no"]},
        (40, 330),
    ),
    "Smartphone": (
        {
            "color": COLORS,
            "storage": ["64GB", "128GB", "256GB"],
            "RAM": ["4GB", "6GB", "8GB"],
            "screen size": ["5.8-inch", "6.1-inch", "6.5-inch"],
        },
        (700, 1200),
    ),
    "Tablet": (
        {"screen size": ["8-inch", "10-inch", "12-inch"], "storage": ["32GB", "64GB", "128GB"], "color": COLORS},
        (250, 1000),
    ),
    "Laptop": (
        {
            "screen size": ["13-inch", "15-inch", "17-inch"],
            "processor": ["i5", "i7", "i9"],
            "ram": ["8GB", "16GB", "32GB"],
            "storage": ["256GB SSD", "512GB SSD", "1TB SSD"],
            "color": COLORS,
        },
        (1000, 3000),
    ),
    "E-Reader": (
        {
            "screen size": ["6-inch", "7-inch", "8-inch"],
            "connectivity": ["Wi-Fi", "Wi-Fi + Cellular"],
            "storage": ["8GB", "32GB"],
        },
        (200, 300),
    ),
    "Digital Camera": (
        {"resolution": ["20MP", "24MP", "30MP"], "zoom": ["3x", "5x", "10x"], "storage": ["SD card", "CF card"]},
        (1800, 3200),
    ),
    "Action Camera": ({"resolution": ["1080p", "4K", "5K"], "waterproof": ["yes", "no"], "color": COLORS}, (250, 550)),
    "Gaming Mouse": (
        {"color": COLORS, "sensor type": ["optical", "laser"], "connectivity": ["wired", "wireless"]},
        (50, 160),
    ),
    "Mechanical Keyboard": (
        {
            "switch type": ["linear", "tactile", "clicky"],
            "backlight": ["none", "white", "RGB"],
            "size": ["full size", "80%", "60%"],
        },
        (90, 300),
    ),
    "Portable Charger": (
        {"capacity": ["5000mAh", "10000mAh", "20000mAh"], "output": ["USB-A", "USB-C", "Wireless"], "color": COLORS},
        (20, 110),
    ),
    "Smart Thermostat": (
        {"compatibility": ["Apple HomeKit", "Google Assistant", "Amazon Alexa"], "color": COLORS},
        (230, 270),
    ),
    "Indoor Security Camera": (
        {
            "resolution": ["1080p", "2K", "4K"],
            "field of view": ["110 degrees", "130 degrees", "160 degrees"],
            "connectivity": ["Wi-Fi", "Ethernet"],
        },
        (130, 390),
    ),
    "Air Purifier": (
        {
            "room size": ["small", "medium", "large"],
            "filter type": ["HEPA", "carbon", "ionic"],
            "features": ["quiet operation", "night mode", "smart sensors"],
        },
        (250, 550),
    ),
    "Vacuum Cleaner": (
        {
            "type": ["upright", "canister", "robotic"],
            "bagged/bagless": ["bagged", "bagless"],
            "features": ["HEPA filter", "pet hair removal", "cordless"],
        },
        (300, 800),
    ),
    "Coffee Maker": (
        {
            "color": COLORS,
            "capacity": ["1 cup", "2 cups", "4 cups", "8 cups"],
            "type": ["drip", "espresso", "french press"],
        },
        (40, 300),
    ),
    "Espresso Machine": (
        {
            "pressure": ["9 bar", "15 bar", "19 bar"],
            "capacity": ["1L", "1.5L", "2L"],
            "type": ["manual", "capsule", "automatic"],
        },
        (1500, 3100),
    ),
    "Electric Kettle": (
        {"capacity": ["1L", "1.5L", "2L"], "material": ["plastic", "stainless steel", "glass"], "color": COLORS},
        (80, 320),
    ),
    "Tea Kettle": (
        {
            "material": ["stainless steel", "glass", "ceramic"],
            "capacity": ["1 liter", "1.5 liters", "2 liters"],
            "stovetop compatibility": ["gas", "induction", "electric"],
        },
        (60, 160),
    ),
    "Electric Toothbrush": (
        {"color": COLORS, "speed settings": ["low", "high"], "battery type": ["rechargeable", "AA batteries"]},
        (150, 270),
    ),
    "Makeup Kit": (
        {
            "skin tone": ["light", "medium", "dark"],
            "kit size": ["basic", "professional"],
            "brand": ["Brand A", "Brand B", "Brand C"],
        },
        (220, 270),
    ),
    "Perfume": (
        {
            "scent family": ["woody", "fresh", "oriental"],
            "size": ["30ml", "50ml", "100ml"],
            "gender": ["men", "women", "unisex"],
        },
        (110, 260),
    ),
    "Yoga Mat": (
        {"thickness": ["4mm", "5mm", "6mm"], "material": ["PVC", "TPE", "natural rubber"], "color": COLORS},
        (20, 130),
    ),
    "Dumbbell Set": (
        {
            "weight range": ["5-25 lbs", "30-50 lbs", "55-75 lbs"],
            "material": ["iron", "rubber", "urethane"],
            "set type": ["fixed", "adjustable"],
        },
        (450, 560),
    ),
    "Cycling Helmet": (
        {"size": ["S", "M", "L"], "color": COLORS, "ventilation": ["low", "medium", "high"]},
        (140, 240),
    ),
    "Bicycle": (
        {"frame size": ["small", "medium", "large"], "color": COLORS, "type": ["road", "mountain", "hybrid"]},
        (1800, 3200),
    ),
    "Skateboard": (
        {
            "deck material": ["maple", "bamboo", "plastic"],
            "length": ["28 inch", "31 inch", "34 inch"],
            "design": ["plain", "graphic", "custom"],
        },
        (80, 220),
    ),
    "Water Bottle": (
        {
            "capacity": ["500ml", "750ml", "1000ml"],
            "material": ["stainless steel", "plastic", "glass"],
            "color": COLORS,
        },
        (20, 60),
    ),
    "Garden Hose": (
        {
            "length": ["25ft", "50ft", "100ft"],
            "material": ["rubber", "vinyl", "latex"],
            "color": ["green", "blue", "black"],
        },
        (60, 120),
    ),
    "Grill": (
        {
            "type": ["charcoal", "gas", "electric"],
            "size": ["portable", "medium", "large"],
            "features": ["side burner", "rotisserie", "none"],
        },
        (400, 1100),
    ),
    "Patio Umbrella": (
        {
            "size": ["6 ft", "7 ft", "9 ft"],
            "color": COLORS,
            "material": ["polyester", "sunbrella", "olefin"],
            "tilt mechanism": ["auto tilt", "manual tilt"],
        },
        (50, 340),
    ),
    "Pet Bed": (
        {"size": ["small", "medium", "large"], "material": ["polyester", "memory foam", "fleece"], "color": COLORS},
        (120, 220),
    ),
    "Office Chair": (
        {
            "material": ["leather", "mesh", "fabric"],
            "color": COLORS,
            "armrest": ["fixed", "adjustable", "none"],
            "backrest height": ["standard", "high-back"],
        },
        (300, 600),
    ),
    "Desk Lamp": (
        {"color": COLORS, "brightness": ["low", "medium", "high"], "power source": ["AC adapter", "USB", "battery"]},
        (80, 220),
    ),
    "Bookshelf": (
        {"material": ["wood", "metal", "glass"], "color": COLORS, "height": ["3 ft", "4 ft", "5 ft", "6 ft"]},
        (450, 600),
    ),
    "Wall Clock": (
        {"diameter": ["10 inches", "12 inches", "14 inches"], "color": COLORS, "type": ["analog", "digital"]},
        (150, 300),
    ),
    "Notebook": ({"size": ["A4", "A5"], "cover type": ["hard cover", "soft cover"]}, (10, 50)),
    "Jigsaw Puzzle": (
        {
            "pieces": ["500", "1000", "1500", "2000"],
            "theme": ["animals", "art", "fantasy", "landscape"],
            "difficulty level": ["beginner", "intermediate", "expert"],
        },
        (30, 90),
    ),
}
