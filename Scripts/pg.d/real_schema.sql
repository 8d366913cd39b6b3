-- A schema shaped like people's (issue 23): an ENUM, exact numerics with NULLs, timestamptz
-- across a daylight-saving change, arrays, jsonb, text with emoji, tabs and newlines, every
-- type psql shows its own way, a partitioned table without a primary key, views, a role in
-- another time zone and a role with column grants.
-- psql -v rows=N (orders rows; the tests use a few ten thousand, the benchmark 3,000,000) -v pw=PASSWORD
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS store CASCADE;
CREATE SCHEMA store;
CREATE TYPE store.order_status AS ENUM ('pending', 'paid', 'shipped', 'cancelled');
CREATE TABLE store.orders (
  id bigint PRIMARY KEY,
  status store.order_status NOT NULL,
  amount numeric(12,2),
  created timestamptz NOT NULL,
  tags text[],
  meta jsonb,
  note text
);
-- Created every 5 s from 2025-10-25 12:00 UTC: Europe/Oslo leaves summer time on 2025-10-26 at
-- 01:00 UTC, so its local times 02:00-03:00 come twice, first +02 then +01.
INSERT INTO store.orders
SELECT g,
  (ARRAY['pending', 'paid', 'shipped', 'cancelled']::store.order_status[])[1 + (g * 7) % 4],
  CASE WHEN g % 7 = 0 THEN NULL WHEN g % 11 = 0 THEN 959.50 ELSE ((g::bigint * 7919) % 10000000) / 100.0 END,
  timestamptz '2025-10-25 12:00:00+00' + (((g::bigint * 104729) % :rows) * 5) * interval '1 second',
  ARRAY['t' || (g % 3), 'x'],
  jsonb_build_object('n', g, 'even', g % 2 = 0),
  CASE WHEN g % 97 = 0 THEN E'tab\there, newline\nthere, emoji 🙂 ' || g ELSE 'note ' || g END
FROM generate_series(1, :rows) g;
-- One 5 MB note: more than the protocol's 4 MiB line on its own.
UPDATE store.orders SET note = repeat('five megabytes 🙂 ', 262144) WHERE id = 42;
CREATE INDEX orders_created ON store.orders (created, id);
CREATE INDEX orders_status ON store.orders (status, id);

-- One row per kind of value, each shown by psql its own way.
CREATE TABLE store.kinds (
  id int PRIMARY KEY,
  exact numeric(30,8),
  free numeric,
  addr inet,
  net cidr,
  span interval,
  price money,
  period int4range,
  u uuid,
  raw bytea,
  spot point,
  doc json,
  at timestamptz,
  day date,
  ratio double precision
);
INSERT INTO store.kinds VALUES
  (1, 1234444433332222.44434322, 1234444433332222.44434322, '10.0.0.153', '10.0.0.0/8', '1 day 02:00', 12.5, '[1,5)',
   'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\x00ff10', '(1,2)', '{"a": [1, 2]}', '2025-10-26 00:30:00+00', '2025-01-31', 0.1),
  (2, 123456789012.12345678, 3.00, '10.0.0.7', '192.168.0.0/16', '2 hours', 3.00, '[2,3)',
   '00000000-0000-0000-0000-000000000001', decode(repeat('ab', 100), 'hex'), '(0,0)', '[]', '2025-10-26 01:30:00+00', '2024-02-29', -0.0),
  (3, 3.00, 'NaN', '9.255.0.1', '10.1.0.0/16', '-1 mons', 959.50, 'empty', NULL, NULL, NULL, 'null', NULL, NULL, 'NaN'),
  (4, -0.00000001, 'Infinity', '::1', '2001:db8::/32', '00:00:01.5', -1, '[-10,-1)', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
   '\x', '(-1,-1)', '"s"', '2025-10-26 00:59:59.999999+00', '1999-12-31', 1e300),
  (5, NULL, '-Infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '2025-10-26 01:00:00+00', NULL, '-Infinity'),
  (6, -959.50, -0.0, '10.0.0.153/24', '10.0.0.0/24', '1 year', 0, '[5,)', '7f000000-0000-0000-0000-000000000000', '\x01',
   '(3,4)', '1', '2025-03-30 01:00:00+00', '2025-12-31', 123456789012.12345);

-- A partitioned table without a primary key: its partitions repeat ctids.
CREATE TABLE store.events (at date NOT NULL, kind text, n int) PARTITION BY RANGE (at);
CREATE TABLE store.events_2024 PARTITION OF store.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE store.events_2025 PARTITION OF store.events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
INSERT INTO store.events SELECT date '2024-01-01' + (g % 700), CASE WHEN g % 5 = 0 THEN NULL ELSE 'kind ' || (g % 13) END, g % 100
  FROM generate_series(1, :rows / 2) g;

-- Views: one whose rows have no key, one over the same rows with a key in the args.
CREATE VIEW store.recent AS SELECT id, status, amount FROM store.orders WHERE id <= 500;
-- A view whose query runs 5 s, longer than two heartbeats.
CREATE VIEW store.slow AS SELECT 1 AS x FROM pg_sleep(5);
CREATE MATERIALIZED VIEW store.totals AS SELECT status, count(*) AS n, sum(amount) AS total FROM store.orders GROUP BY status;

-- A role in another time zone, and a role that may read three columns of orders.
DROP ROLE IF EXISTS oslo;
DROP ROLE IF EXISTS clerk;
CREATE ROLE oslo LOGIN PASSWORD :'pw';
ALTER ROLE oslo SET TimeZone = 'Europe/Oslo';
GRANT USAGE ON SCHEMA store TO oslo;
GRANT SELECT ON ALL TABLES IN SCHEMA store TO oslo;
CREATE ROLE clerk LOGIN PASSWORD :'pw';
GRANT USAGE ON SCHEMA store TO clerk;
GRANT SELECT (id, status, created) ON store.orders TO clerk;
VACUUM ANALYZE;
