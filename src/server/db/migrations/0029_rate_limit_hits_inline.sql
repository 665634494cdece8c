-- A busy key's hits (up to 600 timestamps, 4.8 kB: an API key's minute) stay in the row, compressed if need
-- be, instead of out of line in the TOAST table: every hit rewrites the array, and moving it out of line
-- wrote a TOAST row and its index entry each time (issue 34: half the hit's cost at 600 hits kept).
ALTER TABLE "rate_limits" ALTER COLUMN "hits" SET STORAGE MAIN;
