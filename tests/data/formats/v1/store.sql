-- The format-1 store made by 45aa0b2's code (tests/data/formats/make_v1.py), as SQLite's own dump:
-- text, not a database file; tests/format_fixtures.py restores it into a fresh SQLite file.
BEGIN TRANSACTION;
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version" VALUES('0001');
CREATE TABLE login_failures (
	id INTEGER NOT NULL, 
	username VARCHAR(200) NOT NULL, 
	at FLOAT NOT NULL, 
	PRIMARY KEY (id)
);
CREATE TABLE price_books (
	id VARCHAR(32) NOT NULL, 
	owner VARCHAR(200) NOT NULL, 
	name VARCHAR(120) NOT NULL, 
	document TEXT NOT NULL, 
	revision INTEGER NOT NULL, 
	created_at FLOAT NOT NULL, 
	updated_at FLOAT NOT NULL, 
	deleted_at FLOAT, 
	PRIMARY KEY (id)
);
INSERT INTO "price_books" VALUES('93ff940e2eac28d670aa03e8defb8cbc','local:alice','ACME Q4 quote','{"discounts":{"nics":12.5,"switches":20.0},"fabrics":{"roce-200":{"nic_price":900.0}},"gpus":{},"id":"93ff940e2eac28d670aa03e8defb8cbc","name":"ACME Q4 quote"}',1,1.79626988086468195914e+09,1.79626988086468195914e+09,NULL);
CREATE TABLE scenario_versions (
	scenario_id VARCHAR(32) NOT NULL, 
	version INTEGER NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	document TEXT NOT NULL, 
	sha256 VARCHAR(64) NOT NULL, 
	note VARCHAR(500) NOT NULL, 
	author VARCHAR(200) NOT NULL, 
	created_at FLOAT NOT NULL, 
	PRIMARY KEY (scenario_id, version), 
	FOREIGN KEY(scenario_id) REFERENCES scenarios (id) ON DELETE CASCADE
);
INSERT INTO "scenario_versions" VALUES('5c211661481ffbb1db7ae6fee46d52b0',1,'Intro at 48 nodes','{"baseline":"tcp-100","cluster":{"gpu":"a100-80","gpus_per_node":8,"host_cpu_cost_share":0.12,"host_cpu_power_share":0.5,"host_power_kw":null,"nics_per_node":1,"nodes":48,"server_price":null},"context":{"budget_tight":false,"existing_ethernet":true,"ops_team":"strong"},"custom_price_book":null,"fabrics":["tcp-100","roce-200","iwarp-100","ib-ndr-400"],"facility":{"electricity_price_per_kwh":0.085,"gpu_busy_power_frac":0.8,"gpu_idle_power_frac":0.15,"pue":1.25},"finance":{"discount_rate":0.08,"horizon_years":5,"instalment_months":36,"instalment_rate_annual":0.06,"payment":"upfront","residual_value_frac":0.1},"name":"Intro at 48 nodes","operations":{"checkpoint_write_gbs_per_node":2.0,"cluster_ops_cost_per_node_year":600.0,"maintenance_frac_per_year":0.05,"network_ops_cost_per_node_year":300.0,"restart_minutes":15.0,"value_of_cluster_hour":null},"overrides":{"fabric_prices":{},"fabrics":{},"gpu_prices":{},"gpus":{}},"price_book":"public","scope":"cluster","workload":{"compute_efficiency":0.5,"full_recompute":false,"global_batch_tokens_m":4.0,"grad_bytes":2.0,"hidden_size":null,"model_params_b":50.0,"parallelism":"dp","pipeline_microbatches":32,"pipeline_stages":1,"runs_per_year":6.0,"schedule":"plan","tokens_per_run_b":184.0}}','f67728f2d074bd980e105e6ece652483c61ca35f82a29596e035fcf3312b6b1b','first','local:alice',1.79626988084719681733e+09);
INSERT INTO "scenario_versions" VALUES('5c211661481ffbb1db7ae6fee46d52b0',2,'Intro at 48 nodes, 4 years','{"baseline":"tcp-100","cluster":{"gpu":"a100-80","gpus_per_node":8,"host_cpu_cost_share":0.12,"host_cpu_power_share":0.5,"host_power_kw":null,"nics_per_node":1,"nodes":48,"server_price":null},"context":{"budget_tight":false,"existing_ethernet":true,"ops_team":"strong"},"custom_price_book":null,"fabrics":["tcp-100","roce-200","iwarp-100","ib-ndr-400"],"facility":{"electricity_price_per_kwh":0.085,"gpu_busy_power_frac":0.8,"gpu_idle_power_frac":0.15,"pue":1.25},"finance":{"discount_rate":0.08,"horizon_years":4,"instalment_months":36,"instalment_rate_annual":0.06,"payment":"upfront","residual_value_frac":0.1},"name":"Intro at 48 nodes, 4 years","operations":{"checkpoint_write_gbs_per_node":2.0,"cluster_ops_cost_per_node_year":600.0,"maintenance_frac_per_year":0.05,"network_ops_cost_per_node_year":300.0,"restart_minutes":15.0,"value_of_cluster_hour":null},"overrides":{"fabric_prices":{},"fabrics":{},"gpu_prices":{},"gpus":{}},"price_book":"public","scope":"cluster","workload":{"compute_efficiency":0.5,"full_recompute":false,"global_batch_tokens_m":4.0,"grad_bytes":2.0,"hidden_size":null,"model_params_b":50.0,"parallelism":"dp","pipeline_microbatches":32,"pipeline_stages":1,"runs_per_year":6.0,"schedule":"plan","tokens_per_run_b":184.0}}','fddb8cc2ae8bda45b88815519bd76fa4e4beb4ff147d4a84ce5ce84e471dfca9','shorter horizon','local:alice',1.79626988085149741176e+09);
INSERT INTO "scenario_versions" VALUES('45664d966bb7b8ccf5e6d95d18365044',1,'Blank with two fabrics and a quote','{"baseline":"tcp-100","cluster":{"gpu":"h100","gpus_per_node":null,"host_cpu_cost_share":0.12,"host_cpu_power_share":0.5,"host_power_kw":null,"nics_per_node":null,"nodes":8,"server_price":null},"context":{"budget_tight":false,"existing_ethernet":false,"ops_team":"strong"},"custom_price_book":{"discounts":{"nics":12.5,"switches":20.0},"fabrics":{"roce-200":{"nic_price":900.0}},"gpus":{},"id":"","name":"ACME Q4 quote"},"fabrics":["tcp-100","roce-200"],"facility":{"electricity_price_per_kwh":0.085,"gpu_busy_power_frac":0.8,"gpu_idle_power_frac":0.15,"pue":1.4},"finance":{"discount_rate":0.07,"horizon_years":4,"instalment_months":36,"instalment_rate_annual":0.06,"payment":"upfront","residual_value_frac":0.1},"name":"Blank with two fabrics and a quote","operations":{"checkpoint_write_gbs_per_node":2.0,"cluster_ops_cost_per_node_year":600.0,"maintenance_frac_per_year":0.05,"network_ops_cost_per_node_year":300.0,"restart_minutes":15.0,"value_of_cluster_hour":null},"overrides":{"fabric_prices":{},"fabrics":{},"gpu_prices":{},"gpus":{}},"price_book":"public","scope":"cluster","workload":{"compute_efficiency":0.5,"full_recompute":false,"global_batch_tokens_m":4.0,"grad_bytes":2.0,"hidden_size":null,"model_params_b":7.0,"parallelism":"dp","pipeline_microbatches":32,"pipeline_stages":1,"runs_per_year":6.0,"schedule":"plan","tokens_per_run_b":140.0}}','83d1f41bfedb7713b8135c04ccfb895e0550ce505d1035d5ff6fde4a2c412155','with a quote','local:alice',1.79626988086129403109e+09);
CREATE TABLE scenarios (
	id VARCHAR(32) NOT NULL, 
	owner VARCHAR(200) NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	latest_version INTEGER NOT NULL, 
	created_at FLOAT NOT NULL, 
	updated_at FLOAT NOT NULL, 
	deleted_at FLOAT, 
	PRIMARY KEY (id)
);
INSERT INTO "scenarios" VALUES('5c211661481ffbb1db7ae6fee46d52b0','local:alice','Intro at 48 nodes, 4 years',2,1.79626988084719681733e+09,1.79626988085149741176e+09,NULL);
INSERT INTO "scenarios" VALUES('45664d966bb7b8ccf5e6d95d18365044','local:alice','Blank with two fabrics and a quote',1,1.79626988086129403109e+09,1.79626988086129403109e+09,NULL);
CREATE TABLE share_tokens (
	token_sha256 VARCHAR(64) NOT NULL, 
	scenario_id VARCHAR(32) NOT NULL, 
	version INTEGER, 
	owner VARCHAR(200) NOT NULL, 
	created_at FLOAT NOT NULL, 
	revoked_at FLOAT, 
	PRIMARY KEY (token_sha256), 
	FOREIGN KEY(scenario_id) REFERENCES scenarios (id) ON DELETE CASCADE
);
INSERT INTO "share_tokens" VALUES('31bc2596c07cdafbb3c05ccfa5168bc8893f724bafeaf5be6a4881b8e9f6aeb2','45664d966bb7b8ccf5e6d95d18365044',NULL,'local:alice',1.79626988086919879908e+09,NULL);
CREATE INDEX ix_scenarios_owner ON scenarios (owner);
CREATE INDEX ix_price_books_owner ON price_books (owner);
CREATE INDEX ix_share_tokens_scenario_id ON share_tokens (scenario_id);
CREATE INDEX ix_login_failures_username ON login_failures (username);
COMMIT;
