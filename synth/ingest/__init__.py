"""Reading other people's files: tool-use files in any common shape, and a running server's
description for its registry entry."""
