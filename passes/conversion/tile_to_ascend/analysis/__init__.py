"""What the ascend passes compute about a kernel: the model inject-sync checks, which
core runs each op, the tiles handed between cores, ... — no pass and no lowering here."""
