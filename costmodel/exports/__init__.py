"""Files for people: CSV tables and the Excel workbook with its sheets (live formulas over the inputs)."""
