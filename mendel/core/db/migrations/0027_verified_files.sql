-- Files whose sha256 `mendel doctor` (and the nightly's data_invariants check) computed, with the stat they had:
-- a file with the same size, mtime, ctime and inode is not read again (mendel.doctor.HashCache); one that had
-- changed within a few seconds before it was hashed is never trusted this way. A bundle directory's row records the
-- stat digest of its files when every bundle check passed (digest 'bundle-ok:…'), so an unchanged bundle's chunk
-- tables are not read again either.
CREATE TABLE IF NOT EXISTS verified_files (
    path        text PRIMARY KEY,
    digest      text NOT NULL,
    size        bigint NOT NULL,
    mtime_ns    bigint NOT NULL,
    ctime_ns    bigint NOT NULL,
    inode       bigint NOT NULL,
    verified_at timestamptz NOT NULL DEFAULT now()
);
