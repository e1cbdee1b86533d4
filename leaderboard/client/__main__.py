import sys

from leaderboard.client.cli import main

sys.exit(main())
