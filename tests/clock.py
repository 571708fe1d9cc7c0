"""The day the tests count evidence ages to."""

from __future__ import annotations

from datetime import date

#: The day evidence ages are counted to in the tests (a test may freeze another). The
#: seed's live-verified claims were checked on 2026-09-30, so under the default policy
#: (90 days) they turn stale on the real clock from 2026-12-30: tests of what the seed
#: decides must not change meaning with the date they run on.
TEST_DAY = date(2026, 12, 1)
