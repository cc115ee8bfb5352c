"""A scenario, the model's validated input: its schema, validation and repair, one-field changes, the file
formats and their migrations, presets, price books, locale defaults and titles. Imports only the catalog
and the registry of quantities."""
