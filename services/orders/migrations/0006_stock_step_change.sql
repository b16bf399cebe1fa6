-- Which change wrote the row (a uuid per attempt of a change). A change clears only its own row:
-- one whose COMMIT failed undoes its steps later, under the order's lock taken again, and by then
-- another change may have put the order's stock right and left a row of its own, which is not the
-- failed change's to count or delete. Null for rows written before this column: nobody's own,
-- left for the stock repair.
ALTER TABLE stock_step ADD COLUMN change_id UUID;
