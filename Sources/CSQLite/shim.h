#ifndef TOUCHBRIDGE_CSQLITE_SHIM_H
#define TOUCHBRIDGE_CSQLITE_SHIM_H
#include <sqlite3.h>
/* SQLITE_TRANSIENT is a cast macro Swift cannot import. */
static inline sqlite3_destructor_type tb_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_db_config is variadic, which Swift cannot call: a file from someone else gets
   defensive mode (no writable_schema tricks, no shadow-table writes) and an untrusted schema
   (SQL functions with side effects and virtual tables are not run from its views, triggers,
   CHECKs or generated columns). Returns SQLITE_OK or the first failing code. */
static inline int tb_sqlite_untrusted(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
#endif
    return rc;
}
#endif
