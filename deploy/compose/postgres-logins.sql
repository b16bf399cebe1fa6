-- Laptop only (deploy/compose.yaml): what CloudNativePG's managed roles do in Kubernetes, give
-- each service role LOGIN and a password. Runs after postgres-bootstrap.sql (same file as in the
-- cluster), so the laptop has the same one-role-one-schema rights as production.
ALTER ROLE accounts LOGIN PASSWORD 'accounts-laptop';
ALTER ROLE catalog LOGIN PASSWORD 'catalog-laptop';
ALTER ROLE stock LOGIN PASSWORD 'stock-laptop';
ALTER ROLE orders LOGIN PASSWORD 'orders-laptop';
ALTER ROLE webhooks LOGIN PASSWORD 'webhooks-laptop';
