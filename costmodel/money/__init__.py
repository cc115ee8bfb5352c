"""Money: the ledger of cost lines and its formula language, discounting and instalments, the bill of
materials and the value of a cluster hour. No physics."""
