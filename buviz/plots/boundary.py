"""Former name of :mod:`buviz.plots.uncertainty`, kept so that existing code and notebooks importing
``buviz.plots.boundary`` keep working; new code imports :mod:`buviz.plots.uncertainty`."""

import sys

from buviz.plots import uncertainty as _uncertainty

sys.modules[__name__] = _uncertainty
