"""PostgreSQL with pgvector: the server (embedded or external), its connection, and the chunk, vector and
embedding-cache tables with their exact and HNSW searches."""
