"""The bottom layer: the contracts between the stages, the interfaces of the replaceable parts and their
registries, the rules about documents (access, eligibility, siblings), the citation marker format, the error
hierarchy and the caps on input. It imports no stage."""
