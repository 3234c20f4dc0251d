import os
import sys

from .run import main

try:
    sys.exit(main())
except BrokenPipeError:  # the listing piped into head
    os._exit(0)
