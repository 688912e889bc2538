import sys

from sourcecheck.cli import main

sys.exit(main())
