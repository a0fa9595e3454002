-- A random id per server database, carried in every pull cursor so that a cursor issued by
-- another database (e.g. an in-memory server that was restarted) is recognised and refused.
CREATE TABLE server_identity (
    id           INT          NOT NULL PRIMARY KEY,
    database_id  VARCHAR(32)  NOT NULL
);
