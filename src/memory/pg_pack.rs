//! Packing the shared store's postings into blocks, after the write that made them commits.
//!
//! A record's postings (one per word it holds) are written with it, by a trigger: the postings
//! of a word the insert gives 16 records or more, and all those of an insert of 100 records
//! or more (a batch of an import), as new blocks in `memory_blocks` (schema 16: a row per up
//! to 64 records), the others into `memory_terms`, where they wait. [`super::pg_rank`] reads
//! both. This module promises:
//!
//! * **Packed after the commit, never inside it.** Once a transaction that inserted records
//!   (or deleted some) has committed, the words of those records are handed to
//!   `bob_memory_pack`, 500 words a statement, which moves a word's waiting postings into its
//!   blocks when it has 16 waiting or a posting of a record since deleted. So a writer holds
//!   no lock on a block, two writers on two nodes never wait for each other there, and a long
//!   import does not hold up an approval. The packer skips a word another packer holds, and
//!   gives up after 100 ms waiting for a posting a writer holds.
//! * **One packer of a word at a time, seeing the last.** The packer takes its words' locks
//!   (transaction-scoped advisory try-locks) before it reads them, in a statement of its own
//!   (schema 17), so what it reads includes every packing of those words committed before.
//!   Otherwise it could drop a gone mark without seeing the block that another packer, just
//!   committed, had written that posting into, and the posting would stay there, stale.
//! * **Best effort.** Packing changes where a posting is read from, never what a query finds:
//!   one not packed (the process died after its commit, the database went away, a writer held
//!   it) is read where it waits, and packed by the next write of that word. So a failure here
//!   is not the command's failure; it is dropped.

use crate::db::Database;

/// Packs the words of the records `ids` (those stored: just inserted).
pub(crate) fn records(db: &'static Database, ids: &[String]) {
    if ids.is_empty() {
        return;
    }
    // Dropped: see the module docs.
    if let Ok(of) = db.with(|c| read_words(c, ids)) {
        words(db, &of);
    }
}

/// The words of each user's records `ids`, read before they are deleted (in the deleting
/// transaction `c`), to be [`words`]-packed after the commit.
pub(crate) fn words_of(
    db: &'static Database,
    c: &mut impl postgres::GenericClient,
    ids: &[String],
) -> crate::error::Result<Vec<(String, Vec<String>)>> {
    read_words(c, ids).map_err(|e| db.error(e))
}

/// Each user's words of the records `ids`.
fn read_words(
    c: &mut impl postgres::GenericClient,
    ids: &[String],
) -> Result<Vec<(String, Vec<String>)>, postgres::Error> {
    let rows = c.query(
        "SELECT r.user_id, array_agg(DISTINCT l) \
         FROM memory_records r, unnest(tsvector_to_array(r.tsv)) l \
         WHERE r.id = ANY ($1) GROUP BY r.user_id",
        &[&ids],
    )?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// How many words one packing statement takes: each holds an advisory lock until its
/// statement ends, and the server's lock table has room for a few thousand.
const WORDS_PER_STATEMENT: usize = 500;

/// Packs each user's words `of` (as [`words_of`] read them), a statement (and transaction) per
/// [`WORDS_PER_STATEMENT`].
pub(crate) fn words(db: &'static Database, of: &[(String, Vec<String>)]) {
    for (user, words) in of {
        for chunk in words.chunks(WORDS_PER_STATEMENT) {
            // Dropped: see the module docs.
            let _ = db.with(|c| c.execute("SELECT bob_memory_pack($1, $2)", &[user, &chunk]));
        }
    }
}
