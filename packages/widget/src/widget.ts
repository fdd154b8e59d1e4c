console.log('widget');
