-- A ledger partitioned by time (issue 33; docs/decisions/0354-by-utc-month-declaratively.md
-- to 0360).
--
-- 1. ledger_events becomes a table partitioned BY RANGE (occurred_at), one partition per UTC month
--    (`ledger_events_YYYY_MM`) and a DEFAULT partition (`ledger_events_default`) for a row no month
--    partition holds yet. The rows move: a new table is created, the rows copied, the names swapped.
--    Every column, CHECK and (non-unique) index is kept; the CHECKs that 0024 and 0029 added NOT VALID
--    are plain CHECKs here, since the copy checks every row anyway (they only admit more than the
--    validated ones before them). The primary key includes the partition key: (event_id, occurred_at).
--
-- 2. On a partitioned table a unique index must include the partition key, so the four unique indexes
--    on impression_id (ledger_one_view, ledger_one_click, ledger_one_report, ledger_one_void) cannot
--    stay. They are replaced by `ledger_claims`, unpartitioned, keyed (impression_id, kind): the
--    statement writing a ledger row that must be at most once per impression inserts its claim first
--    and writes the row only when the claim is new (src/store/ledger.ts#claimedInsert). kind:
--      view          the measured view (an `impression` or `view` row): one per impression
--      click         the first click
--      repeat_view, expired_view, voided_impression, voided_click: one of each per impression
--    claimed_at is the row's occurred_at. The ledger-partitions job prunes claims that decide nothing
--    any more (src/jobs/ledger-partitions.ts).
--
-- 3. ledger_ensure_partition(month) creates a month's partition unless it exists, moving into it any
--    row of that month the DEFAULT partition holds (ATTACH PARTITION refuses a range the default has
--    rows of). Created standalone and attached, so the ledger takes no ACCESS EXCLUSIVE lock: ATTACH
--    needs SHARE UPDATE EXCLUSIVE on ledger_events, while CREATE TABLE ... PARTITION OF would lock it
--    whole. The job calls it ahead of time (the current month and the next two); this migration creates
--    every month from the oldest row (or the current month) to two months ahead, so the default starts
--    empty.
--
-- 4. ledger_retention: the first UTC day whose ledger rows are kept (NULL: nothing dropped yet),
--    written by the job in the transaction that drops partitions (LEDGER_RETENTION_DAYS).

CREATE TABLE ledger_claims (
  impression_id  text NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('view', 'click', 'repeat_view', 'expired_view', 'voided_impression', 'voided_click')),
  claimed_at     timestamptz NOT NULL,
  PRIMARY KEY (impression_id, kind)
);

ALTER TABLE ledger_events RENAME TO ledger_events_unpartitioned;
ALTER SEQUENCE ledger_events_event_id_seq OWNED BY NONE;

CREATE TABLE ledger_events (
  event_id       bigint NOT NULL DEFAULT nextval('ledger_events_event_id_seq'),
  occurred_at    timestamptz NOT NULL,
  event_type     text NOT NULL,
  impression_id  text NOT NULL,
  user_id        text NOT NULL,
  campaign_id    text NOT NULL,
  creative_id    text NOT NULL,
  surface        text NOT NULL,
  country        text,
  billable       boolean NOT NULL,
  debit_micros   bigint NOT NULL DEFAULT 0,
  dwell_ms       integer,
  reason         text,
  viewer_key     text NOT NULL,
  source         text,
  offer_age_ms   integer,
  CONSTRAINT ledger_events_debit_micros_check CHECK (debit_micros >= 0),
  CONSTRAINT ledger_surface_known CHECK (surface IN ('extension', 'terminal')),
  CONSTRAINT ledger_country_code CHECK (country ~ '^[A-Z]{2}$'),
  CONSTRAINT ledger_ids_plain CHECK (campaign_id ~ '^[A-Za-z0-9_]+$' AND creative_id ~ '^[A-Za-z0-9_]+$'),
  CONSTRAINT ledger_billable_by_type
    CHECK (CASE event_type WHEN 'impression' THEN billable WHEN 'click' THEN true ELSE NOT billable END),
  CONSTRAINT ledger_debit_only_billable CHECK (debit_micros = 0 OR billable),
  CONSTRAINT ledger_event_type_known
    CHECK (event_type IN ('impression', 'view', 'click', 'repeat_view', 'expired_view', 'voided_impression', 'voided_click')),
  CONSTRAINT ledger_view_reason_known CHECK (
    (event_type <> 'view' OR coalesce(reason IN ('short_dwell', 'too_fast', 'viewer_frequency', 'block_full', 'invalid_traffic',
                                                 'dwell_exceeds_elapsed', 'inventory_exhausted', 'campaign_cancelled'), false))
    AND (event_type <> 'repeat_view' OR reason = 'repeat')
    AND (event_type <> 'expired_view' OR reason = 'expired')
    AND (event_type NOT IN ('voided_impression', 'voided_click') OR reason = 'invalid_traffic')
  )
) PARTITION BY RANGE (occurred_at);
ALTER SEQUENCE ledger_events_event_id_seq OWNED BY ledger_events.event_id;

CREATE TABLE ledger_events_default PARTITION OF ledger_events DEFAULT;

CREATE FUNCTION ledger_ensure_partition(month date) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  name text := 'ledger_events_' || to_char(date_trunc('month', month), 'YYYY_MM');
  lo timestamptz := date_trunc('month', month)::timestamp AT TIME ZONE 'UTC';
  hi timestamptz := (date_trunc('month', month) + interval '1 month')::timestamp AT TIME ZONE 'UTC';
BEGIN
  IF to_regclass(name) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE ledger_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
  EXECUTE format('WITH moved AS (DELETE FROM ledger_events_default WHERE occurred_at >= $1 AND occurred_at < $2 RETURNING *)
    INSERT INTO %I SELECT * FROM moved', name) USING lo, hi;
  EXECUTE format('ALTER TABLE ledger_events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name,
    to_char(lo AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00"'), to_char(hi AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00"'));
  RETURN true;
END
$$;

SELECT ledger_ensure_partition(m::date)
FROM (SELECT min(occurred_at) AS lo, max(occurred_at) AS hi FROM ledger_events_unpartitioned) b,
  generate_series(
    date_trunc('month', least(coalesce(b.lo, now()), now()) AT TIME ZONE 'UTC'),
    date_trunc('month', greatest(coalesce(b.hi, now()), now() + interval '2 months') AT TIME ZONE 'UTC'),
    interval '1 month'
  ) AS m;

INSERT INTO ledger_events (event_id, occurred_at, event_type, impression_id, user_id, campaign_id, creative_id, surface, country,
                           billable, debit_micros, dwell_ms, reason, viewer_key, source, offer_age_ms)
  SELECT event_id, occurred_at, event_type, impression_id, user_id, campaign_id, creative_id, surface, country,
         billable, debit_micros, dwell_ms, reason, viewer_key, source, offer_age_ms
  FROM ledger_events_unpartitioned;

INSERT INTO ledger_claims (impression_id, kind, claimed_at)
  SELECT impression_id, CASE WHEN event_type IN ('impression', 'view') THEN 'view' ELSE event_type END, min(occurred_at)
  FROM ledger_events_unpartitioned
  GROUP BY 1, 2;

DROP TABLE ledger_events_unpartitioned;

-- Built once over the copied rows; each partition gets its own, and a partition attached later too.
ALTER TABLE ledger_events ADD CONSTRAINT ledger_events_pkey PRIMARY KEY (event_id, occurred_at);
CREATE INDEX ledger_account_time ON ledger_events (user_id, occurred_at);
CREATE INDEX ledger_time ON ledger_events (occurred_at);
CREATE INDEX ledger_creative_time ON ledger_events (creative_id, occurred_at);
CREATE INDEX ledger_sourced_time ON ledger_events (occurred_at) WHERE source IS NOT NULL;

CREATE TABLE ledger_retention (
  id             integer PRIMARY KEY CHECK (id = 1),
  retained_from  date,
  updated_at     timestamptz
);
INSERT INTO ledger_retention (id, retained_from, updated_at) VALUES (1, NULL, NULL);
