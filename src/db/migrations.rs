//! The shared store's schema, as numbered migrations applied in order (see [`super`]).
//!
//! A migration is never edited once released: a change is a new, higher-numbered one.

/// One schema step.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: i32,
    pub name: &'static str,
    pub sql: &'static str,
}

/// Every migration, in order.
pub static MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "checkpoints",
        // One row per session; `doc` is the checkpoint JSON as bob writes it (redacted). A row
        // at revision 0 with no document is a session being created: it gives two first writers
        // one row to lock, so the second sees the first's commit.
        sql: "CREATE TABLE checkpoints (
              session_id text PRIMARY KEY,
              revision bigint NOT NULL CHECK (revision >= 0),
              doc text,
              updated_at timestamptz NOT NULL DEFAULT now(),
              CHECK ((revision = 0) = (doc IS NULL))
          );",
    },
    Migration {
        version: 2,
        name: "serve_runs",
        // The run queue of every `bob serve` node. `node` and `lease_until` (database time)
        // say which node runs a `running` run until when; `cancel_by` asks that node to
        // cancel it. Chat sessions are shared with the runs of their messages.
        sql: "CREATE TABLE serve_runs (
              seq bigserial PRIMARY KEY,
              id text NOT NULL UNIQUE,
              agent_id text NOT NULL,
              session_id text NOT NULL,
              user_id text,
              message text NOT NULL,
              thinking_mode text NOT NULL,
              profile text NOT NULL,
              source text NOT NULL,
              status text NOT NULL,
              created_at text NOT NULL,
              started_at text,
              finished_at text,
              duration_ms bigint,
              output text,
              provider text,
              model text,
              error text,
              tool_calls bigint NOT NULL DEFAULT 0,
              attempts bigint NOT NULL DEFAULT 0,
              mode text NOT NULL DEFAULT 'act',
              node text,
              lease_until timestamptz,
              cancel_by text
          );
          CREATE INDEX serve_runs_status ON serve_runs (status, seq);
          CREATE INDEX serve_runs_session ON serve_runs (session_id, status);
          CREATE INDEX serve_runs_node ON serve_runs (node) WHERE status = 'running';
          CREATE TABLE serve_chat_sessions (
              seq bigserial PRIMARY KEY,
              id text NOT NULL UNIQUE,
              agent_id text NOT NULL,
              user_id text NOT NULL,
              room_id text NOT NULL,
              created_at text NOT NULL,
              active boolean NOT NULL
          );
          CREATE INDEX serve_chat_key ON serve_chat_sessions (agent_id, user_id, room_id);",
    },
    Migration {
        version: 3,
        name: "schedule_jobs",
        // The scheduler's jobs document (what `schedule/jobs.json` holds in a home), one row.
        sql: "CREATE TABLE schedule_jobs (
              id integer PRIMARY KEY CHECK (id = 1),
              doc text NOT NULL,
              updated_at timestamptz NOT NULL DEFAULT now()
          );",
    },
    Migration {
        version: 4,
        name: "serve_tokens",
        // The serve tokens (hashes only), what `serve/tokens.json` holds in a home, one row.
        sql: "CREATE TABLE serve_tokens (
              id integer PRIMARY KEY CHECK (id = 1),
              doc text NOT NULL,
              updated_at timestamptz NOT NULL DEFAULT now()
          );",
    },
    Migration {
        version: 5,
        name: "memory",
        // Long-term records (a weighted tsvector for the full-text ranking: title A, tags and
        // summary B, body C), candidates (at most one pending row per user and digest), and
        // the approval ledger: one keyed-chain record per row, never updated or deleted.
        sql: "CREATE TABLE memory_records (
              rid bigserial UNIQUE,
              id text PRIMARY KEY,
              user_id text NOT NULL,
              title text NOT NULL,
              summary text NOT NULL,
              body text NOT NULL,
              tags text[] NOT NULL,
              tag_words text NOT NULL,
              importance integer NOT NULL,
              created_unix bigint NOT NULL,
              expires_unix bigint,
              digest text NOT NULL,
              record text NOT NULL,
              tsv tsvector GENERATED ALWAYS AS (
                  setweight(to_tsvector('english', title), 'A')
                  || setweight(to_tsvector('english', tag_words), 'B')
                  || setweight(to_tsvector('english', summary), 'B')
                  || setweight(to_tsvector('english', body), 'C')) STORED
          );
          CREATE INDEX memory_records_tsv ON memory_records USING gin (tsv);
          CREATE INDEX memory_records_user ON memory_records (user_id, created_unix);
          CREATE INDEX memory_records_created ON memory_records (created_unix);
          CREATE TABLE memory_candidates (
              id text PRIMARY KEY,
              user_id text NOT NULL,
              status text NOT NULL,
              digest text NOT NULL,
              created_unix bigint NOT NULL,
              row text NOT NULL
          );
          CREATE INDEX memory_candidates_status ON memory_candidates (status, created_unix);
          CREATE UNIQUE INDEX memory_candidates_pending ON memory_candidates (user_id, digest)
              WHERE status = 'pending';
          CREATE TABLE memory_ledger (
              seq bigint PRIMARY KEY CHECK (seq >= 0),
              record text NOT NULL,
              written_at timestamptz NOT NULL DEFAULT now()
          );
          CREATE FUNCTION bob_memory_ledger_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
              RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
                  USING ERRCODE = 'insufficient_privilege';
          END $$;
          CREATE TRIGGER memory_ledger_append_only BEFORE UPDATE OR DELETE ON memory_ledger
              FOR EACH ROW EXECUTE FUNCTION bob_memory_ledger_refuse();
          CREATE TRIGGER memory_ledger_no_truncate BEFORE TRUNCATE ON memory_ledger
              FOR EACH STATEMENT EXECUTE FUNCTION bob_memory_ledger_refuse();",
    },
    Migration {
        version: 6,
        name: "audit_events",
        // The audit events, one keyed-chain record per row: one chain per agent (`chain`, what
        // `audit/<agent_id>/` holds in a home), appended under an advisory lock per chain so
        // `seq` never forks, never updated or deleted. `run_id` and `event_type` are copies of
        // the record's fields, for reading one run's events.
        sql: "CREATE TABLE audit_events (
              id bigserial UNIQUE,
              chain text NOT NULL,
              seq bigint NOT NULL CHECK (seq >= 0),
              run_id text NOT NULL,
              event_type text NOT NULL,
              record text NOT NULL,
              written_at timestamptz NOT NULL DEFAULT now(),
              PRIMARY KEY (chain, seq)
          );
          CREATE INDEX audit_events_run ON audit_events (run_id, chain, seq);
          CREATE FUNCTION bob_append_only_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
              RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
                  USING ERRCODE = 'insufficient_privilege';
          END $$;
          CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
              FOR EACH ROW EXECUTE FUNCTION bob_append_only_refuse();
          CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
              FOR EACH STATEMENT EXECUTE FUNCTION bob_append_only_refuse();",
    },
    Migration {
        version: 7,
        name: "memory_tsv_inline",
        // A record's tsvector is read for every row a query ranks: keep it in the row (moved
        // out to TOAST only as a last resort) so that costs no second lookup; the JSON record
        // and the body move out instead. Rows written before keep their layout until
        // rewritten (`VACUUM FULL memory_records`).
        sql: "ALTER TABLE memory_records ALTER COLUMN tsv SET STORAGE MAIN;",
    },
    Migration {
        version: 8,
        name: "serve_runs_system",
        // A run's own instructions for every role (`POST /v1/runs`'s `system`); none for the
        // runs queued before.
        sql: "ALTER TABLE serve_runs ADD COLUMN system text;",
    },
    Migration {
        version: 9,
        name: "turn_records",
        // One row per turn record, in commit order; `record` is the redacted JSON line
        // `turns.jsonl` holds in a home. `digest` (SHA-256 of `record`) makes a copy of the
        // same record (`bob db import` run twice) a no-op.
        sql: "CREATE TABLE turn_records (
              seq bigserial PRIMARY KEY,
              run_id text NOT NULL,
              session_id text NOT NULL,
              ts text NOT NULL,
              digest text NOT NULL,
              record text NOT NULL,
              UNIQUE (run_id, digest)
          );
          CREATE INDEX turn_records_run ON turn_records (run_id, seq);",
    },
    Migration {
        version: 10,
        name: "stm",
        // Short-term memory, one row per entry, as the `stm` table of a home's memory.db:
        // `entry` is the entry's JSON (redacted before it is stored).
        sql: "CREATE TABLE stm (
              seq bigserial PRIMARY KEY,
              id text NOT NULL UNIQUE,
              user_id text NOT NULL,
              created_unix bigint NOT NULL,
              entry text NOT NULL
          );
          CREATE INDEX stm_user ON stm (user_id, seq);
          CREATE INDEX stm_created ON stm (created_unix);",
    },
    Migration {
        version: 11,
        name: "secrets",
        // Sealed secrets, as a home's `secrets/secrets.db` holds them: XChaCha20-Poly1305
        // ciphertexts under the nodes' secrets key (a file, never a row). `secrets_changes`
        // counts the rows changed, so a serving node learns of another node's change with one
        // small read.
        sql: "CREATE TABLE secrets (
              name text PRIMARY KEY,
              nonce bytea NOT NULL,
              ciphertext bytea NOT NULL,
              created_at text NOT NULL,
              updated_at text NOT NULL,
              bound_to text
          );
          CREATE TABLE secrets_changes (
              one boolean PRIMARY KEY DEFAULT true CHECK (one),
              changes bigint NOT NULL
          );
          INSERT INTO secrets_changes (one, changes) VALUES (true, 0);
          CREATE FUNCTION bob_secrets_changed() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
              UPDATE secrets_changes SET changes = changes + 1;
              RETURN NULL;
          END $$;
          CREATE TRIGGER secrets_changed AFTER INSERT OR UPDATE OR DELETE ON secrets
              FOR EACH ROW EXECUTE FUNCTION bob_secrets_changed();
          CREATE TRIGGER secrets_truncated AFTER TRUNCATE ON secrets
              FOR EACH STATEMENT EXECUTE FUNCTION bob_secrets_changed();",
    },
    Migration {
        version: 12,
        name: "memory_vectors",
        // The vector of a long-term record (one per record: the model that made it, its
        // dimension, `dim` little-endian f32 of unit length), gone with its record.
        // `memory_vector_marks` counts each user's vectors per model, and `high` is that
        // user and model's change counter: every insert, update or delete of one of its vectors
        // raises it by one and an inserted or updated vector takes the new value as its `seq`,
        // both under the marks row's lock, so `seq` grows in commit order and a node's cache
        // of the vectors is brought up to date by reading the rows above the `high` it saw.
        // `memory_vector_store` names this database, so a cache is never taken for another's.
        sql: "CREATE TABLE memory_vectors (
              rid bigint PRIMARY KEY REFERENCES memory_records (rid) ON DELETE CASCADE,
              id text NOT NULL,
              user_id text NOT NULL,
              model text NOT NULL,
              dim integer NOT NULL CHECK (dim > 0),
              vector bytea NOT NULL CHECK (length(vector) = 4 * dim),
              seq bigint NOT NULL DEFAULT 0
          );
          CREATE INDEX memory_vectors_user ON memory_vectors (user_id, model, seq);
          CREATE TABLE memory_vector_marks (
              user_id text NOT NULL,
              model text NOT NULL,
              n bigint NOT NULL,
              high bigint NOT NULL,
              PRIMARY KEY (user_id, model)
          );
          CREATE TABLE memory_vector_store (token text PRIMARY KEY);
          INSERT INTO memory_vector_store
              VALUES (md5(random()::text || clock_timestamp()::text || pg_backend_pid()));
          CREATE FUNCTION bob_memory_vector_mark() RETURNS trigger LANGUAGE plpgsql AS $$
          DECLARE h bigint;
          BEGIN
              IF TG_OP IN ('DELETE', 'UPDATE') THEN
                  UPDATE memory_vector_marks SET n = n - 1, high = high + 1
                      WHERE user_id = OLD.user_id AND model = OLD.model;
              END IF;
              IF TG_OP = 'DELETE' THEN
                  RETURN OLD;
              END IF;
              INSERT INTO memory_vector_marks AS m (user_id, model, n, high)
                  VALUES (NEW.user_id, NEW.model, 1, 1)
                  ON CONFLICT (user_id, model) DO UPDATE SET n = m.n + 1, high = m.high + 1
                  RETURNING m.high INTO h;
              NEW.seq := h;
              RETURN NEW;
          END $$;
          CREATE TRIGGER memory_vectors_mark BEFORE INSERT OR UPDATE OR DELETE ON memory_vectors
              FOR EACH ROW EXECUTE FUNCTION bob_memory_vector_mark();",
    },
    Migration {
        version: 13,
        name: "chain_keys",
        // The key epochs of the shared chains (`bob ledger rekey` on the shared store): one row
        // per chain key, epoch 1 the key the chains began with. `sealed_key` is the key sealed
        // with the secrets key every node shares (XChaCha20-Poly1305, the row's `key_id` bound
        // as associated data), so every node can verify every epoch and sign with the newest.
        // Append-only like the chains. Appenders take the epoch lock shared under their chain's
        // lock; a rekey takes it exclusively.
        sql: "CREATE TABLE chain_keys (
              epoch bigint PRIMARY KEY CHECK (epoch >= 1),
              key_id text NOT NULL UNIQUE,
              nonce bytea NOT NULL,
              sealed_key bytea NOT NULL,
              previous_key_id text,
              created_at text NOT NULL
          );
          CREATE TRIGGER chain_keys_append_only BEFORE UPDATE OR DELETE ON chain_keys
              FOR EACH ROW EXECUTE FUNCTION bob_append_only_refuse();
          CREATE TRIGGER chain_keys_no_truncate BEFORE TRUNCATE ON chain_keys
              FOR EACH STATEMENT EXECUTE FUNCTION bob_append_only_refuse();",
    },
    Migration {
        version: 14,
        name: "memory_rank",
        // What the full-text ranking reads of each long-term record, in a narrow table of its
        // own: the ranking fetches up to its budget's rows by the tsvector index, and a row of
        // `memory_records` carries the record's text three times (title/summary/body, the
        // record JSON, the tsvector), so those fetches touched about twice the pages and the
        // table outgrew PostgreSQL's default shared buffers at 100,000 records. Kept by a
        // trigger on every insert or update of `memory_records`; a record's deletion removes
        // its row (the foreign key). The tsvector index moves here with it.
        sql: "CREATE TABLE memory_rank (
              rid bigint PRIMARY KEY REFERENCES memory_records (rid) ON DELETE CASCADE,
              id text NOT NULL,
              user_id text NOT NULL,
              tags text[] NOT NULL,
              importance integer NOT NULL,
              created_unix bigint NOT NULL,
              expires_unix bigint,
              tsv tsvector
          );
          ALTER TABLE memory_rank ALTER COLUMN tsv SET STORAGE MAIN;
          INSERT INTO memory_rank (rid, id, user_id, tags, importance, created_unix, expires_unix, tsv)
              SELECT rid, id, user_id, tags, importance, created_unix, expires_unix, tsv
              FROM memory_records ORDER BY rid;
          CREATE INDEX memory_rank_tsv ON memory_rank USING gin (tsv);
          DROP INDEX memory_records_tsv;
          CREATE FUNCTION bob_memory_rank_copy() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
              INSERT INTO memory_rank (rid, id, user_id, tags, importance, created_unix, expires_unix, tsv)
                  VALUES (NEW.rid, NEW.id, NEW.user_id, NEW.tags, NEW.importance,
                          NEW.created_unix, NEW.expires_unix, NEW.tsv)
                  ON CONFLICT (rid) DO UPDATE SET id = EXCLUDED.id, user_id = EXCLUDED.user_id,
                      tags = EXCLUDED.tags, importance = EXCLUDED.importance,
                      created_unix = EXCLUDED.created_unix, expires_unix = EXCLUDED.expires_unix,
                      tsv = EXCLUDED.tsv;
              RETURN NULL;
          END $$;
          CREATE TRIGGER memory_rank_copy AFTER INSERT OR UPDATE ON memory_records
              FOR EACH ROW EXECUTE FUNCTION bob_memory_rank_copy();",
    },
    Migration {
        version: 15,
        name: "memory_terms",
        // The long-term records' postings: one row per (user, lexeme, record) holding what
        // bm25 needs of that record for that lexeme (its weighted frequency: title 4, tags and
        // summary 2, body 1; the record's length in positions; its importance, creation and
        // expiry), all in the primary key's index. A query reads its lexemes' postings by an
        // index-only scan, a few contiguous index pages per lexeme, instead of one random heap
        // page per matching record (which a fresh server process pays for twice: the read
        // and its first touch of that shared buffer). Kept by a trigger on every insert,
        // update or delete of `memory_records` (an insert's once per statement, so a batch of
        // an import is one insert here). Filled here, then indexed (about 45 s per 100,000
        // records on 2 cores).
        sql: "CREATE FUNCTION bob_memory_terms_of(v tsvector)
              RETURNS TABLE (lexeme text, tf real, len integer)
              LANGUAGE sql IMMUTABLE AS $$
                  WITH t AS (SELECT u.lexeme, u.positions, u.weights FROM unnest(v) u)
                  SELECT t.lexeme,
                         coalesce((SELECT sum(CASE w WHEN 'A' THEN 4 WHEN 'B' THEN 2 ELSE 1 END)
                                   FROM unnest(t.weights) w), 1)::real,
                         (SELECT sum(greatest(coalesce(cardinality(p.positions), 0), 1))
                          FROM t p)::integer
                  FROM t
              $$;
          CREATE TABLE memory_terms (
              user_id text NOT NULL,
              lexeme text NOT NULL,
              rid bigint NOT NULL,
              tf real NOT NULL,
              len integer NOT NULL,
              importance integer NOT NULL,
              created_unix bigint NOT NULL,
              expires_unix bigint
          );
          INSERT INTO memory_terms
              SELECT r.user_id, t.lexeme, r.rid, t.tf, t.len, r.importance, r.created_unix,
                     r.expires_unix
              FROM memory_records r, bob_memory_terms_of(r.tsv) t;
          ALTER TABLE memory_terms ADD PRIMARY KEY (user_id, lexeme, rid)
              INCLUDE (tf, len, importance, created_unix, expires_unix);
          CREATE FUNCTION bob_memory_terms_add() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
              INSERT INTO memory_terms
                  SELECT n.user_id, t.lexeme, n.rid, t.tf, t.len, n.importance,
                         n.created_unix, n.expires_unix
                  FROM added n, bob_memory_terms_of(n.tsv) t;
              RETURN NULL;
          END $$;
          CREATE TRIGGER memory_terms_add AFTER INSERT ON memory_records
              REFERENCING NEW TABLE AS added
              FOR EACH STATEMENT EXECUTE FUNCTION bob_memory_terms_add();
          CREATE FUNCTION bob_memory_terms_change() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
              DELETE FROM memory_terms
                  WHERE user_id = OLD.user_id AND rid = OLD.rid
                    AND lexeme = ANY (tsvector_to_array(OLD.tsv));
              IF TG_OP = 'UPDATE' THEN
                  INSERT INTO memory_terms
                      SELECT NEW.user_id, t.lexeme, NEW.rid, t.tf, t.len, NEW.importance,
                             NEW.created_unix, NEW.expires_unix
                      FROM bob_memory_terms_of(NEW.tsv) t;
              END IF;
              RETURN NULL;
          END $$;
          CREATE TRIGGER memory_terms_change AFTER UPDATE OR DELETE ON memory_records
              FOR EACH ROW EXECUTE FUNCTION bob_memory_terms_change();",
    },
    Migration {
        version: 16,
        name: "memory_blocks",
        // The postings of a common word in blocks: one row per user, lexeme and block of up
        // to 64 records, the postings inside packed as 16 bytes each (record id, weighted
        // frequency and length, big-endian int8, int4, int4; the frequency is a whole number
        // of weights), by record id, with the records' expiries as an array when one of them
        // expires. So a query reads a row per 64 postings instead of an index entry per
        // posting, and receives 16 bytes for each rather than arrays' 36. `lo` and `hi` are
        // the block's first and last record id. A word's postings are split into blocks of
        // even size (65 make two of 32 and 33).
        //
        // An insert's postings of a word it gives 16 or more records, and all the postings of
        // an insert of 100 records or more (a batch of an import: a rare word's make small
        // blocks, but no posting is written twice), become new blocks at once; the others
        // wait in `memory_terms`. New rows only: a writer never waits on another here. `memory_terms_gone` marks the packed postings
        // of records since deleted or changed (no unique key: a writer never waits on one).
        // `bob_memory_pack` moves a word's waiting postings into its blocks, merged with the
        // blocks that have room and those that may hold a posting gone (which it drops, with
        // its mark), once a word has 16 waiting or any gone. It runs after a write commits,
        // not inside it; two packers of one word skip rather than wait (a transaction-scoped
        // advisory try-lock), and it waits at most 100 ms for a posting a writer holds before
        // it gives up (the next write of that word packs it): a writer waits on it only for
        // its one statement. Here every word of 16 postings or more is packed, and
        // `memory_terms` emptied of them.
        sql: "CREATE SEQUENCE memory_blocks_blk;
          CREATE TABLE memory_blocks (
              user_id text NOT NULL,
              lexeme text NOT NULL,
              blk bigint NOT NULL DEFAULT nextval('memory_blocks_blk'),
              lo bigint NOT NULL,
              hi bigint NOT NULL,
              postings bytea NOT NULL,
              exps bigint[],
              PRIMARY KEY (user_id, lexeme, blk)
          );
          CREATE FUNCTION bob_memory_posting(rid bigint, tf real, len integer) RETURNS bytea
              LANGUAGE sql IMMUTABLE AS $$
                  SELECT int8send(rid) || int4send(tf::integer) || int4send(len)
              $$;
          CREATE FUNCTION bob_memory_block(p bytea, exps bigint[])
              RETURNS TABLE (rid bigint, tf real, len integer, exp bigint)
              LANGUAGE sql IMMUTABLE AS $$
                  SELECT ('x' || encode(substring(p FROM 16 * k + 1 FOR 8), 'hex'))
                             ::bit(64)::bigint,
                         ('x' || encode(substring(p FROM 16 * k + 9 FOR 4), 'hex'))
                             ::bit(32)::integer::real,
                         ('x' || encode(substring(p FROM 16 * k + 13 FOR 4), 'hex'))
                             ::bit(32)::integer,
                         exps[k + 1]
                  FROM generate_series(0, length(p) / 16 - 1) k
              $$;
          CREATE FUNCTION bob_memory_blocks_add(u text[], lx text[], r bigint[], t real[],
                                                l integer[], e bigint[]) RETURNS void
              LANGUAGE sql AS $$
                  INSERT INTO memory_blocks (user_id, lexeme, lo, hi, postings, exps)
                  SELECT g.user_id, g.lexeme, min(g.rid), max(g.rid),
                         string_agg(bob_memory_posting(g.rid, g.tf, g.len), ''::bytea
                                    ORDER BY g.rid),
                         CASE WHEN count(g.exp) > 0 THEN array_agg(g.exp ORDER BY g.rid) END
                  FROM (SELECT x.*, ntile(ceil(x.n / 64.0)::integer)
                                        OVER (PARTITION BY x.user_id, x.lexeme ORDER BY x.rid)
                                        AS k
                        FROM (SELECT y.*, count(*) OVER (PARTITION BY y.user_id, y.lexeme) AS n
                              FROM unnest(u, lx, r, t, l, e)
                                   AS y(user_id, lexeme, rid, tf, len, exp)) x) g
                  GROUP BY g.user_id, g.lexeme, g.k
              $$;
          CREATE OR REPLACE FUNCTION bob_memory_terms_add() RETURNS trigger
              LANGUAGE plpgsql AS $$
          DECLARE
              ignored bigint;
              batch boolean;
          BEGIN
              SELECT count(*) >= 100 INTO batch FROM added;
              WITH p AS MATERIALIZED (
                  SELECT a.user_id, t.lexeme, a.rid, t.tf, t.len, a.importance, a.created_unix,
                         a.expires_unix, count(*) OVER (PARTITION BY a.user_id, t.lexeme) AS n
                  FROM added a, bob_memory_terms_of(a.tsv) t),
              waiting AS (
                  INSERT INTO memory_terms
                      SELECT p.user_id, p.lexeme, p.rid, p.tf, p.len, p.importance,
                             p.created_unix, p.expires_unix
                      FROM p WHERE p.n < 16 AND NOT batch)
              SELECT count(*) INTO ignored FROM (
                  SELECT bob_memory_blocks_add(array_agg(p.user_id), array_agg(p.lexeme),
                                               array_agg(p.rid), array_agg(p.tf),
                                               array_agg(p.len), array_agg(p.expires_unix))
                  FROM p WHERE p.n >= 16 OR batch HAVING count(*) > 0) b;
              RETURN NULL;
          END $$;
          CREATE TABLE memory_terms_gone (
              user_id text NOT NULL,
              lexeme text NOT NULL,
              rid bigint NOT NULL
          );
          CREATE INDEX memory_terms_gone_word ON memory_terms_gone (user_id, lexeme);
          CREATE OR REPLACE FUNCTION bob_memory_terms_change() RETURNS trigger
              LANGUAGE plpgsql AS $$
          BEGIN
              -- A posting not found waiting was packed: it is marked gone.
              WITH waiting AS (
                  DELETE FROM memory_terms
                  WHERE user_id = OLD.user_id AND rid = OLD.rid
                    AND lexeme = ANY (tsvector_to_array(OLD.tsv))
                  RETURNING lexeme)
              INSERT INTO memory_terms_gone (user_id, lexeme, rid)
                  SELECT OLD.user_id, l, OLD.rid FROM unnest(tsvector_to_array(OLD.tsv)) l
                  WHERE l NOT IN (SELECT lexeme FROM waiting);
              IF TG_OP = 'UPDATE' THEN
                  INSERT INTO memory_terms
                      SELECT NEW.user_id, t.lexeme, NEW.rid, t.tf, t.len, NEW.importance,
                             NEW.created_unix, NEW.expires_unix
                      FROM bob_memory_terms_of(NEW.tsv) t;
              END IF;
              RETURN NULL;
          END $$;
          CREATE FUNCTION bob_memory_pack(u text, words text[]) RETURNS integer
              LANGUAGE sql SET lock_timeout = '100ms' AS $$
              WITH w AS MATERIALIZED (
                  SELECT x.lexeme FROM (SELECT DISTINCT unnest(words) AS lexeme) x
                  WHERE ((SELECT count(*) FROM (SELECT FROM memory_terms t
                                                WHERE t.user_id = u AND t.lexeme = x.lexeme
                                                LIMIT 16) c) >= 16
                         OR EXISTS (SELECT FROM memory_terms_gone g
                                    WHERE g.user_id = u AND g.lexeme = x.lexeme))
                    AND pg_try_advisory_xact_lock(hashtextextended(u || ' ' || x.lexeme, 16))),
              fresh AS (
                  DELETE FROM memory_terms t USING w
                  WHERE t.user_id = u AND t.lexeme = w.lexeme
                  RETURNING t.lexeme, t.rid, t.tf, t.len, t.expires_unix AS exp),
              gone AS (
                  DELETE FROM memory_terms_gone g USING w
                  WHERE g.user_id = u AND g.lexeme = w.lexeme
                  RETURNING g.lexeme, g.rid),
              old AS (
                  DELETE FROM memory_blocks b USING w
                  WHERE b.user_id = u AND b.lexeme = w.lexeme
                    AND (length(b.postings) < 16 * 32
                         OR EXISTS (SELECT FROM gone WHERE gone.lexeme = b.lexeme
                                                       AND gone.rid BETWEEN b.lo AND b.hi))
                  RETURNING b.lexeme, b.postings, b.exps),
              every AS (
                  SELECT f.lexeme, f.rid, f.tf, f.len, f.exp FROM fresh f
                  UNION ALL
                  SELECT o.lexeme, x.rid, x.tf, x.len, x.exp
                  FROM old o, bob_memory_block(o.postings, o.exps) x
                  WHERE NOT EXISTS (SELECT FROM gone WHERE gone.lexeme = o.lexeme
                                                       AND gone.rid = x.rid)),
              put AS (
                  SELECT bob_memory_blocks_add(array_agg(u), array_agg(lexeme), array_agg(rid),
                                               array_agg(tf), array_agg(len), array_agg(exp))
                  FROM every HAVING count(*) > 0)
              SELECT (SELECT count(*)::integer FROM w) FROM (SELECT count(*) FROM put) p
          $$;
          CREATE TEMPORARY TABLE memory_terms_common ON COMMIT DROP AS
              SELECT user_id, lexeme FROM memory_terms
              GROUP BY user_id, lexeme HAVING count(*) >= 16;
          SELECT bob_memory_blocks_add(array_agg(t.user_id), array_agg(t.lexeme),
                                       array_agg(t.rid), array_agg(t.tf), array_agg(t.len),
                                       array_agg(t.expires_unix))
              FROM memory_terms t JOIN memory_terms_common USING (user_id, lexeme)
              HAVING count(*) > 0;
          -- What stays is copied aside and the table emptied, which gives its space back
          -- at once (deleting would leave it to a vacuum).
          CREATE TEMPORARY TABLE memory_terms_rare ON COMMIT DROP AS
              SELECT t.* FROM memory_terms t
              WHERE NOT EXISTS (SELECT FROM memory_terms_common c
                                WHERE (c.user_id, c.lexeme) = (t.user_id, t.lexeme));
          TRUNCATE memory_terms;
          INSERT INTO memory_terms SELECT * FROM memory_terms_rare;",
    },
    Migration {
        version: 17,
        name: "memory_pack_locks_first",
        // `bob_memory_pack` takes its words' advisory locks in a statement of its own, then
        // packs them with migration 16's function (renamed `bob_memory_pack_held`). In one
        // statement its snapshot could predate the commit of another packer of the same word,
        // whose lock it then got: it consumed a gone mark without seeing the block the other
        // packer had just written with that posting in it, which then stayed there, stale. A
        // statement begun once the locks are held sees every packing of those words committed
        // before them.
        //
        // Postings a database at 16 may hold stale that way are not told apart from the
        // others cheaply, so they are all rebuilt from the records, as the insert trigger
        // writes a batch's: a word's postings as blocks when it has 16 records or more, in
        // `memory_terms` otherwise.
        sql: "ALTER FUNCTION bob_memory_pack(text, text[]) RENAME TO bob_memory_pack_held;
          CREATE FUNCTION bob_memory_pack(u text, words text[]) RETURNS integer
              LANGUAGE plpgsql AS $$
          DECLARE
              held text[];
          BEGIN
              SELECT array_agg(x.lexeme) INTO held
              FROM (SELECT DISTINCT unnest(words) AS lexeme) x
              WHERE pg_try_advisory_xact_lock(hashtextextended(u || ' ' || x.lexeme, 16));
              IF held IS NULL THEN
                  RETURN 0;
              END IF;
              -- Its statement's snapshot is taken now, with the locks held (which it takes
              -- again: a session's advisory locks are reentrant).
              RETURN bob_memory_pack_held(u, held);
          END $$;
          TRUNCATE memory_blocks, memory_terms, memory_terms_gone;
          CREATE TEMPORARY TABLE memory_postings ON COMMIT DROP AS
              SELECT r.user_id, t.lexeme, r.rid, t.tf, t.len, r.importance, r.created_unix,
                     r.expires_unix,
                     count(*) OVER (PARTITION BY r.user_id, t.lexeme) AS n
              FROM memory_records r, bob_memory_terms_of(r.tsv) t;
          INSERT INTO memory_terms
              SELECT user_id, lexeme, rid, tf, len, importance, created_unix, expires_unix
              FROM memory_postings WHERE n < 16;
          SELECT bob_memory_blocks_add(array_agg(user_id), array_agg(lexeme), array_agg(rid),
                                       array_agg(tf), array_agg(len), array_agg(expires_unix))
              FROM memory_postings WHERE n >= 16
              HAVING count(*) > 0;",
    },
];
