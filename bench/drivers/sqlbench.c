/*
 * bench/drivers/sqlbench.c -- a deterministic, CPU-bound SQLite workload on
 * an in-memory database: prepared inserts, indexes, GROUP BY, a join, LIKE,
 * a window function, a recursive CTE, UPDATE and DELETE.  Every result row
 * is folded into an FNV-1a hash, printed at the end, so that every build of
 * the benchmark can be checked to compute the same thing.
 *
 * usage: sqlbench [SCALE]    (SCALE * 40000 rows; 1 by default)
 */
#include <stdio.h>
#include <stdlib.h>
#include "sqlite3.h"

static unsigned long long fnv = 1469598103934665603ULL;

static int fold_row(void *unused, int ncol, char **val, char **name)
{
	(void)unused;
	(void)name;
	for (int i = 0; i < ncol; i++)
		for (const char *p = val[i] ? val[i] : "NULL"; *p; p++)
			fnv = (fnv ^ (unsigned char)*p) * 1099511628211ULL;
	return 0;
}

static void run_sql(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, fold_row, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlbench: %s\n  in: %s\n", err, sql);
		exit(1);
	}
}

static void insert_rows(sqlite3 *db, int nrows)
{
	sqlite3_stmt *st;
	unsigned x = 12345;
	char name[64];

	if (sqlite3_prepare_v2(db, "INSERT INTO t(a, b, c, d) VALUES (?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		exit(1);
	for (int i = 0; i < nrows; i++) {
		x = x * 1103515245u + 12345u;
		snprintf(name, sizeof name, "name%u-%c%c", (x >> 8) % 5000,
			 'a' + (x >> 3) % 26, 'a' + (x >> 13) % 26);
		sqlite3_bind_int(st, 1, (int)((x >> 4) % 1000));
		sqlite3_bind_double(st, 2, ((x >> 9) % 100000) / 7.0);
		sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 4, i % 97);
		if (sqlite3_step(st) != SQLITE_DONE)
			exit(1);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	int nrows = 40000 * scale;
	sqlite3 *db;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 1;
	run_sql(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b REAL, c TEXT, d INT);"
		    "CREATE TABLE u(k INT, v TEXT);");
	run_sql(db, "BEGIN");
	insert_rows(db, nrows);
	run_sql(db, "INSERT INTO u SELECT a, upper(c) FROM t WHERE d < 10 AND id <= 40000");
	run_sql(db, "COMMIT");
	run_sql(db, "CREATE INDEX ta ON t(a); CREATE INDEX tc ON t(c); CREATE INDEX uk ON u(k)");
	run_sql(db, "SELECT a, count(*), sum(b), max(c) FROM t GROUP BY a ORDER BY 2 DESC, 1 LIMIT 20");
	run_sql(db, "SELECT count(*), avg(t.b) FROM t JOIN u ON t.a = u.k WHERE t.d BETWEEN 5 AND 20");
	run_sql(db, "SELECT c, length(c), substr(c, 3, 4), replace(c, 'name', 'N') FROM t"
		    " WHERE c LIKE 'name12%' ORDER BY c");
	run_sql(db, "SELECT d, group_concat(a, ',') FROM"
		    " (SELECT d, a FROM t WHERE id % 50 = 0 ORDER BY a) GROUP BY d");
	run_sql(db, "WITH RECURSIVE r(n, s) AS (SELECT 1, 0 UNION ALL"
		    " SELECT n + 1, s + n * n % 7 FROM r WHERE n < 50000) SELECT max(n), sum(s) FROM r");
	run_sql(db, "UPDATE t SET b = b * 1.5, c = c || 'x' WHERE a % 3 = 0");
	run_sql(db, "DELETE FROM t WHERE a % 7 = 1");
	run_sql(db, "SELECT a, d, count(*) OVER (PARTITION BY d ORDER BY a ROWS 10 PRECEDING)"
		    " FROM t WHERE id % 20 = 0 ORDER BY id LIMIT 2000");
	run_sql(db, "SELECT printf('%08.3f|%s', sum(b), hex(max(c))), total(a) FROM t");
	run_sql(db, "SELECT count(DISTINCT c), count(DISTINCT a * d) FROM t");
	sqlite3_close(db);
	printf("sqlbench rows=%d checksum=%016llx\n", nrows, fnv);
	return 0;
}
