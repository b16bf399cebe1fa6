// Integration and end-to-end tests talk to real Postgres, Redis, Kafka and started services: on a
// busy two-core machine a step that takes 1 s alone can take several. jest's 5 s default then cuts
// off a test that is correct, and its leftover requests can run into the next test. A test that
// needs longer still says so itself.
jest.setTimeout(30_000);
