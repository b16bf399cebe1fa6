-- A check a statement makes of itself: raises when a count of rows it wrote is not the one the
-- caller expected. A hold's write is sent with COMMIT in one round trip (the products' row locks
-- are held one round trip less); checked in SQL, a wrong count still fails the transaction before
-- COMMIT runs, instead of being seen in its answer after the change committed.
CREATE FUNCTION expect_count(what TEXT, actual BIGINT, expected BIGINT) RETURNS BIGINT
LANGUAGE plpgsql AS $$
BEGIN
  IF actual IS DISTINCT FROM expected THEN
    RAISE EXCEPTION '%: % of % rows', what, actual, expected;
  END IF;
  RETURN actual;
END
$$;
