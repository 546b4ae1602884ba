-- The frequencies of the cells of migration 0026: PostgreSQL gathers statistics on an index's
-- expressions only when the table is analysed, and until then it would guess every radius's
-- rows at a fixed share of the table, the very guess the cells are there to replace. A table
-- that changes little may wait long for autovacuum to analyse it.
ANALYZE canonical.entities;
ANALYZE canonical.listings;
ANALYZE canonical.requests;
