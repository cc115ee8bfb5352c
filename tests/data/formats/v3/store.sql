-- The format-3 store made by a72e2d8's code (make_v3.py), as SQLite's own dump:
-- text, not a database file; tests/format_fixtures.py restores it.
BEGIN TRANSACTION;
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version" VALUES('0003');
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
INSERT INTO "price_books" VALUES('11b662539f79a896adb0b57dda8adfb4','local:alice','ACME Q4 quote','{"discounts":{"nics":12.5,"switches":20.0},"fabrics":{"roce-200":{"nic_price":900.0}},"gpus":{},"id":"11b662539f79a896adb0b57dda8adfb4","name":"ACME Q4 quote"}',1,1.7963002200118889809e+09,1.7963002200118889809e+09,NULL);
CREATE TABLE scenario_versions (
	scenario_id VARCHAR(32) NOT NULL, 
	version INTEGER NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	document TEXT NOT NULL, 
	sha256 VARCHAR(64) NOT NULL, 
	note VARCHAR(500) NOT NULL, 
	author VARCHAR(200) NOT NULL, 
	created_at FLOAT NOT NULL, format INTEGER, summary TEXT, 
	PRIMARY KEY (scenario_id, version), 
	FOREIGN KEY(scenario_id) REFERENCES scenarios (id) ON DELETE CASCADE
);
INSERT INTO "scenario_versions" VALUES('efbe060f9034d959facdc14935116a5a',1,'Intro at 48 nodes','{"baseline":"tcp-100","cluster":{"gpu":"a100-80","gpus_per_node":8,"host_cpu_cost_share":0.12,"host_cpu_power_share":0.5,"host_power_kw":null,"nics_per_node":1,"nodes":48,"server_price":null},"context":{"budget_tight":false,"existing_ethernet":true,"ops_team":"strong"},"custom_price_book":null,"fabrics":["tcp-100","roce-200","iwarp-100","ib-ndr-400"],"facility":{"electricity_price_per_kwh":0.085,"gpu_busy_power_frac":0.8,"gpu_idle_power_frac":0.15,"pue":1.25},"finance":{"discount_rate":0.08,"horizon_years":5,"instalment_months":36,"instalment_rate_annual":0.06,"payment":"upfront","residual_value_frac":0.1},"name":"Intro at 48 nodes","operations":{"checkpoint_write_gbs_per_node":2.0,"cluster_ops_cost_per_node_year":600.0,"maintenance_frac_per_year":0.05,"network_ops_cost_per_node_year":300.0,"restart_minutes":15.0,"value_of_cluster_hour":null},"overrides":{"fabric_prices":{},"fabrics":{},"gpu_prices":{},"gpus":{}},"price_book":"public","scope":"cluster","workload":{"compute_efficiency":0.5,"full_recompute":false,"global_batch_tokens_m":4.0,"grad_bytes":2.0,"hidden_size":null,"model_params_b":50.0,"parallelism":"dp","pipeline_microbatches":32,"pipeline_stages":1,"runs_per_year":6.0,"schedule":"plan","tokens_per_run_b":184.0}}','f67728f2d074bd980e105e6ece652483c61ca35f82a29596e035fcf3312b6b1b','first','local:alice',1.79630021999558567996e+09,3,'{"currency":"USD","fabrics":{"ib-ndr-400":{"run_days":10.7395292782762,"tco_total":11046629.362029897},"iwarp-100":{"run_days":13.78161450577675,"tco_total":11032556.487317469},"roce-200":{"run_days":10.7395292782762,"tco_total":11143276.522490881},"tcp-100":{"run_days":25.192685836213425,"tco_total":11136785.544807954}},"horizon_years":5,"model":{"computed_on":"2026-12-03","data":"b2d0ba9cce361e94","format":3}}');
INSERT INTO "scenario_versions" VALUES('efbe060f9034d959facdc14935116a5a',2,'Intro at 48 nodes, 4 years','{"baseline":"tcp-100","cluster":{"gpu":"a100-80","gpus_per_node":8,"host_cpu_cost_share":0.12,"host_cpu_power_share":0.5,"host_power_kw":null,"nics_per_node":1,"nodes":48,"server_price":null},"context":{"budget_tight":false,"existing_ethernet":true,"ops_team":"strong"},"custom_price_book":null,"fabrics":["tcp-100","roce-200","iwarp-100","ib-ndr-400"],"facility":{"electricity_price_per_kwh":0.085,"gpu_busy_power_frac":0.8,"gpu_idle_power_frac":0.15,"pue":1.25},"finance":{"discount_rate":0.08,"horizon_years":4,"instalment_months":36,"instalment_rate_annual":0.06,"payment":"upfront","residual_value_frac":0.1},"name":"Intro at 48 nodes, 4 years","operations":{"checkpoint_write_gbs_per_node":2.0,"cluster_ops_cost_per_node_year":600.0,"maintenance_frac_per_year":0.05,"network_ops_cost_per_node_year":300.0,"restart_minutes":15.0,"value_of_cluster_hour":null},"overrides":{"fabric_prices":{},"fabrics":{},"gpu_prices":{},"gpus":{}},"price_book":"public","scope":"cluster","workload":{"compute_efficiency":0.5,"full_recompute":false,"global_batch_tokens_m":4.0,"grad_bytes":2.0,"hidden_size":null,"model_params_b":50.0,"parallelism":"dp","pipeline_microbatches":32,"pipeline_stages":1,"runs_per_year":6.0,"schedule":"plan","tokens_per_run_b":184.0}}','fddb8cc2ae8bda45b88815519bd76fa4e4beb4ff147d4a84ce5ce84e471dfca9','shorter horizon','local:alice',1.79630022000083255763e+09,3,'{"currency":"USD","fabrics":{"ib-ndr-400":{"run_days":10.7395292782762,"tco_total":10428350.838103916},"iwarp-100":{"run_days":13.78161450577675,"tco_total":10409038.181358423},"roce-200":{"run_days":10.7395292782762,"tco_total":10517611.914952707},"tcp-100":{"run_days":25.192685836213425,"tco_total":10492665.753211273}},"horizon_years":4,"model":{"computed_on":"2026-12-03","data":"b2d0ba9cce361e94","format":3}}');
INSERT INTO "scenario_versions" VALUES('a05c1ee5b9850f1e839875ef0cb39394',1,'Blank with two fabrics and a quote','{"baseline":"tcp-100","cluster":{"gpu":"h100","gpus_per_node":null,"host_cpu_cost_share":0.12,"host_cpu_power_share":0.5,"host_power_kw":null,"nics_per_node":null,"nodes":8,"server_price":null},"context":{"budget_tight":false,"existing_ethernet":false,"ops_team":"strong"},"custom_price_book":{"discounts":{"nics":12.5,"switches":20.0},"fabrics":{"roce-200":{"nic_price":900.0}},"gpus":{},"id":"","name":"ACME Q4 quote"},"fabrics":["tcp-100","roce-200"],"facility":{"electricity_price_per_kwh":0.085,"gpu_busy_power_frac":0.8,"gpu_idle_power_frac":0.15,"pue":1.4},"finance":{"discount_rate":0.07,"horizon_years":4,"instalment_months":36,"instalment_rate_annual":0.06,"payment":"upfront","residual_value_frac":0.1},"name":"Blank with two fabrics and a quote","operations":{"checkpoint_write_gbs_per_node":2.0,"cluster_ops_cost_per_node_year":600.0,"maintenance_frac_per_year":0.05,"network_ops_cost_per_node_year":300.0,"restart_minutes":15.0,"value_of_cluster_hour":null},"overrides":{"fabric_prices":{},"fabrics":{},"gpu_prices":{},"gpus":{}},"price_book":"public","scope":"cluster","workload":{"compute_efficiency":0.5,"full_recompute":false,"global_batch_tokens_m":4.0,"grad_bytes":2.0,"hidden_size":null,"model_params_b":7.0,"parallelism":"dp","pipeline_microbatches":32,"pipeline_stages":1,"runs_per_year":6.0,"schedule":"plan","tokens_per_run_b":140.0}}','83d1f41bfedb7713b8135c04ccfb895e0550ce505d1035d5ff6fde4a2c412155','with a quote','local:alice',1.79630022000525975227e+09,3,'{"currency":"USD","fabrics":{"roce-200":{"run_days":2.155486013141166,"tco_total":2928337.359787886},"tcp-100":{"run_days":2.155486013141166,"tco_total":2804735.2685124245}},"horizon_years":4,"model":{"computed_on":"2026-12-03","data":"b2d0ba9cce361e94","format":3}}');
INSERT INTO "scenario_versions" VALUES('224aee77484a2144e7c63000903cfca1',1,'H100 pipeline, 96 micro-batches','{"baseline":"tcp-100","cluster":{"gpu":"h100","gpus_per_node":8,"host_cpu_cost_share":0.12,"host_cpu_power_share":0.5,"host_power_kw":null,"nics_per_node":1,"nodes":128,"server_price":null},"context":{"budget_tight":false,"existing_ethernet":false,"ops_team":"strong"},"custom_price_book":null,"fabrics":["tcp-100","roce-400","iwarp-100","ib-xdr-800"],"facility":{"electricity_price_per_kwh":0.085,"gpu_busy_power_frac":0.8,"gpu_idle_power_frac":0.15,"pue":1.15},"finance":{"discount_rate":0.08,"horizon_years":5,"instalment_months":36,"instalment_rate_annual":0.06,"payment":"upfront","residual_value_frac":0.1},"name":"H100 pipeline, 96 micro-batches","operations":{"checkpoint_write_gbs_per_node":2.0,"cluster_ops_cost_per_node_year":600.0,"maintenance_frac_per_year":0.05,"network_ops_cost_per_node_year":300.0,"restart_minutes":15.0,"value_of_cluster_hour":null},"overrides":{"fabric_prices":{},"fabrics":{},"gpu_prices":{},"gpus":{}},"price_book":"public","scope":"cluster","workload":{"compute_efficiency":0.5,"full_recompute":false,"global_batch_tokens_m":6.3,"grad_bytes":2.0,"hidden_size":25600,"model_params_b":1000.0,"parallelism":"pipeline","pipeline_microbatches":96,"pipeline_stages":16,"runs_per_year":6.0,"schedule":"plan","tokens_per_run_b":231.0}}','4301fed5a0a73dd3a39dc9728b00ca81cdc4077970a8816c4e8a51f28b0067be','96 micro-batches','local:alice',1.79630022000873661039e+09,3,'{"currency":"USD","fabrics":{"ib-xdr-800":{"run_days":38.047584100531516,"tco_total":47263122.99617757},"iwarp-100":{"run_days":40.98603114989781,"tco_total":46905356.404648565},"roce-400":{"run_days":38.43856924706835,"tco_total":47414917.77677156},"tcp-100":{"run_days":44.71369372332817,"tco_total":47134724.28584758}},"horizon_years":5,"model":{"computed_on":"2026-12-03","data":"b2d0ba9cce361e94","format":3}}');
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
INSERT INTO "scenarios" VALUES('efbe060f9034d959facdc14935116a5a','local:alice','Intro at 48 nodes, 4 years',2,1.79630021999558567996e+09,1.79630022000083255763e+09,NULL);
INSERT INTO "scenarios" VALUES('a05c1ee5b9850f1e839875ef0cb39394','local:alice','Blank with two fabrics and a quote',1,1.79630022000525975227e+09,1.79630022000525975227e+09,NULL);
INSERT INTO "scenarios" VALUES('224aee77484a2144e7c63000903cfca1','local:alice','H100 pipeline, 96 micro-batches',1,1.79630022000873661039e+09,1.79630022000873661039e+09,NULL);
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
INSERT INTO "share_tokens" VALUES('2b22a7695b9e099d7197e115911638a3140036c0eb3c9575cb791bbae37a0be0','224aee77484a2144e7c63000903cfca1',NULL,'local:alice',1.7963002200143606663e+09,NULL);
CREATE TABLE web_sessions (
	id VARCHAR(32) NOT NULL, 
	username VARCHAR(200) NOT NULL, 
	token_sha256 VARCHAR(64), 
	handoff_sha256 VARCHAR(64), 
	handoff_expires_at FLOAT, 
	created_at FLOAT NOT NULL, 
	expires_at FLOAT NOT NULL, 
	revoked_at FLOAT, 
	PRIMARY KEY (id), 
	UNIQUE (token_sha256), 
	UNIQUE (handoff_sha256)
);
CREATE INDEX ix_scenarios_owner ON scenarios (owner);
CREATE INDEX ix_price_books_owner ON price_books (owner);
CREATE INDEX ix_share_tokens_scenario_id ON share_tokens (scenario_id);
CREATE INDEX ix_login_failures_username ON login_failures (username);
CREATE INDEX ix_web_sessions_username ON web_sessions (username);
COMMIT;
