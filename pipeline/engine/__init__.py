"""The engine: one configuration and one builder (`engine.config`), the parts that ship (`engine.parts`), the
journey over them (`engine.journey`), and the frozen seed scenarios."""
