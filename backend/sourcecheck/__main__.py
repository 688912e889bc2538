import sys

from sourcecheck.cli import main

if __name__ == "__main__":  # the PDF parser's child process imports this module again: it must not run the CLI
    sys.exit(main())
