"""Chat models bench asks (judges, generators): the OpenAI-compatible client, its requests' settings and its
reply cache."""
